import HeapCensus
import Testing

/// A closure of a generic class's method that captures `self` and a function value whose
/// result is `sending` and generic (`@Sendable () -> sending Base.AsyncIterator`, as
/// swift-async-algorithms' `AsyncShareSequence` keeps one). The context's capture descriptor
/// binds no generic argument (they come from `self`'s class), and the runtime's type resolver
/// aborts the process on the capture's lowered function type ("Expected a metadata pack but
/// got metadata"): the census's snapshot, and with it the whole-suite check at the exit of
/// swift-async-algorithms' test process, killed the process it ran in. Captures whose types
/// are lowered function types or boxes are never handed to the resolver now.
@Suite struct SendingResultCaptureTests {
    init() { HeapCensus.start() }

    @Test func aSnapshotReadsAContextThatCapturesAFunctionWithASendingGenericResult() throws {
        let share = IteratorShare(AsyncStream<Int> { $0.finish() })
        let pending = share.pending()
        // Before, the process this test runs in was killed here.
        let heap = HeapCensus.snapshot()
        let shares = heap.countsByType().filter {
            $0.typeName.hasPrefix("HeapCensusTests.IteratorShare<")
        }
        #expect(shares.map(\.count) == [1], "\(shares)")
        withExtendedLifetime(pending) {}
    }
}

/// Shares one base sequence's iterator, made by a factory on first use.
final class IteratorShare<Base: AsyncSequence & Sendable>: @unchecked Sendable {
    let factory: @Sendable () -> sending Base.AsyncIterator

    init(_ base: Base) {
        factory = { base.makeAsyncIterator() }
    }

    /// A closure that keeps this share and its factory until the first iteration.
    func pending() -> @Sendable () -> Void {
        let factory = self.factory
        return { [self] in
            _ = self
            _ = factory
        }
    }
}
