import Dispatch
import Foundation
import StackTraces
import Testing

/// A value set once from another thread, read after a wait that never sleeps blindly.
final class Handoff<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let ready = DispatchSemaphore(value: 0)
    private var value: Value?

    func put(_ newValue: Value) {
        lock.withLock { value = newValue }
        ready.signal()
    }

    /// Waits until a value arrives or the generous deadline passes.
    func take(within seconds: Double = 30) -> Value? {
        guard ready.wait(timeout: .now() + seconds) == .success else { return nil }
        return lock.withLock { value }
    }

    var current: Value? { lock.withLock { value } }
}

/// Checks what every capture must satisfy, whatever thread it ran on.
func expectSane(_ trace: StackTrace?, calledFrom name: String) throws {
    let trace = try #require(trace)
    #expect(!trace.isEmpty)
    #expect(trace.addresses.count <= StackTrace.defaultDepth)
    #expect(trace.addresses.allSatisfy { $0 > 0x1000 })
    let frames = trace.symbolicated()
    let first = try #require(frames.first)
    #expect(first.module == "StackTracesTests")
    #expect(first.function?.contains(name) == true, "first frame: \(first)")
}

@Suite("Capture on every kind of thread")
struct ThreadKindTests {
    @Test func captureInsideARunLoopTimerCallback() throws {
        let handoff = Handoff<StackTrace>()
        let thread = Thread {
            let timer = Timer(timeInterval: 0.001, repeats: false) { _ in
                handoff.put(StackTrace.capture())
            }
            RunLoop.current.add(timer, forMode: .default)
            let deadline = Date(timeIntervalSinceNow: 30)
            while handoff.current == nil, Date() < deadline {
                _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
            }
            timer.invalidate()
        }
        thread.start()
        try expectSane(handoff.take(), calledFrom: "captureInsideARunLoopTimerCallback")
    }

    @Test func captureOnADispatchQueue() throws {
        let handoff = Handoff<StackTrace>()
        DispatchQueue(label: "StackTracesTests.capture").async {
            handoff.put(StackTrace.capture())
        }
        try expectSane(handoff.take(), calledFrom: "captureOnADispatchQueue")
    }

    @Test func captureOnABackgroundThread() throws {
        let handoff = Handoff<StackTrace>()
        let thread = Thread { handoff.put(StackTrace.capture()) }
        thread.start()
        try expectSane(handoff.take(), calledFrom: "captureOnABackgroundThread")
    }

    @Test func captureInsideADetachedTask() async throws {
        let trace = await Task.detached { StackTrace.capture() }.value
        try expectSane(trace, calledFrom: "captureInsideADetachedTask")
    }

    @Test func captureInsideAnAsyncFunctionAfterSuspending() async throws {
        await Task.yield()
        let trace = StackTrace.capture()
        await Task.yield()
        try expectSane(trace, calledFrom: "captureInsideAnAsyncFunctionAfterSuspending")
    }

    @Test func captureLeavesErrnoUnchanged() {
        errno = 0
        _ = StackTrace.capture(depth: StackTrace.maximumDepth)
        #expect(errno == 0)
        errno = EINTR
        _ = StackTrace.capture()
        #expect(errno == EINTR)
    }
}
