import Dispatch
import Foundation
import StackTraces
import Testing

/// Many threads capturing and symbolicating at once: the symbol cache's locking under load.
/// `make test-tsan` runs every suite whose name contains "Stress" under ThreadSanitizer.
@Suite("Stack trace stress")
struct StackTraceStressTests {
    /// Names collected from many threads, behind a lock ThreadSanitizer understands.
    final class Names: @unchecked Sendable {
        private let lock = NSLock()
        private var names: [String?] = []
        func append(_ name: String?) { lock.withLock { names.append(name) } }
        var all: [String?] { lock.withLock { names } }
    }

    @Test func concurrentCaptureAndSymbolicationAgree() {
        let iterations = 64
        let names = Names()
        DispatchQueue.concurrentPerform(iterations: iterations) { _ in
            let trace = StackTrace.capture(depth: 8)
            names.append(trace.symbolicated().first?.function)
        }
        let all = names.all
        #expect(all.count == iterations)
        #expect(all.allSatisfy { $0?.contains("concurrentCaptureAndSymbolicationAgree") == true })
    }
}
