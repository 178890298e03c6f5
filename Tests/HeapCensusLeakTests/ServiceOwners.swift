import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// More owners written the way services write them (see Owners.swift): each leaking variant
// forgets one step, each fixed variant takes it. Nothing here uses a RetainGraph type.

/// An API client that is its session's delegate.
final class APIClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    var session: URLSession?
    func start() {
        session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
    }
    func stop() { session?.invalidateAndCancel() }
}

/// A cache refresher on a plain `Foundation.Timer` scheduled on a background thread's run loop.
final class BackgroundRefresher: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    var timer: Timer?
    var refreshes = 0

    /// Starts the thread and its timer; returns once the timer is scheduled.
    func start(weakly: Bool) {
        let scheduled = DispatchSemaphore(value: 0)
        let thread = Thread { [weak self] in
            guard let self else { return }
            let timer =
                weakly
                ? Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { [weak self] _ in
                    self?.refresh()
                }
                : Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { _ in
                    self.refresh()
                }
            self.lock.withLock { self.timer = timer }
            scheduled.signal()
            Self.runUntilStopped(self)
        }
        thread.name = "refresher"
        thread.start()
        scheduled.wait()
    }

    /// Runs the current run loop in short slices until `refresher` is stopped or gone.
    private static func runUntilStopped(_ refresher: BackgroundRefresher) {
        weak let weakRefresher = refresher
        while let current = weakRefresher, !current.isStopped {
            _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.01))
        }
    }

    var isStopped: Bool { lock.withLock { stopped } }

    func stop() {
        lock.withLock {
            stopped = true
            timer?.invalidate()
        }
    }
    func refresh() { refreshes += 1 }
}

/// A poller whose task waits on a continuation that `deliver(_:)` resumes.
final class ContinuationWaiter: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: CheckedContinuation<String, Never>?
    var task: Task<Void, Never>?
    var last: String?

    func start() {
        task = Task {
            let value = await withCheckedContinuation { continuation in
                self.lock.withLock { self.pending = continuation }
            }
            self.last = value
        }
    }

    var isWaiting: Bool { lock.withLock { pending != nil } }

    /// Returns once the task waits on its continuation (suspending, so the task can run).
    func untilWaiting() async {
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while !isWaiting, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Resumes the wait (the fix): the task ends and lets go of the waiter.
    func stop() {
        let continuation = lock.withLock { () -> CheckedContinuation<String, Never>? in
            defer { pending = nil }
            return pending
        }
        continuation?.resume(returning: "stopped")
    }
}

/// A parent whose child keeps a strong delegate.
protocol ChildDelegate: AnyObject {
    func childDidFinish()
}

final class Parent: ChildDelegate, @unchecked Sendable {
    var child: Child?
    func start(weakly: Bool) {
        let child = weakly ? Child(weakDelegate: self) : Child(delegate: self)
        self.child = child
    }
    func childDidFinish() {}
}

final class Child: @unchecked Sendable {
    var delegate: ChildDelegate?
    weak var weakDelegate: ChildDelegate?
    init(delegate: ChildDelegate) { self.delegate = delegate }
    init(weakDelegate: ChildDelegate) { self.weakDelegate = weakDelegate }
}

/// A registry singleton holding closures.
final class Handlers: @unchecked Sendable {
    static let shared = Handlers()
    private let lock = NSLock()
    private var byName: [String: @Sendable () -> Void] = [:]
    func register(_ name: String, _ handler: @escaping @Sendable () -> Void) {
        lock.withLock { byName[name] = handler }
    }
    func unregister(_ name: String) { _ = lock.withLock { byName.removeValue(forKey: name) } }
}

final class Subscriber: @unchecked Sendable {
    let name: String
    init(name: String) { self.name = name }
    func start() { Handlers.shared.register(name) { self.handle() } }
    func stop() { Handlers.shared.unregister(name) }
    func handle() {}
}

/// An entry of PlatformHintTests' global cache (a global of their own: suites run in parallel).
final class HintEntry: @unchecked Sendable {}

nonisolated(unsafe) var hintCache: [HintEntry] = []
