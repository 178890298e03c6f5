import Dispatch

extension CompactGraph {
    /// The strongly connected components and the root-path tree, computed at the same time on
    /// two threads.
    ///
    /// The two searches read the same immutable arrays and write only their own results. Both
    /// are chains of dependent cache misses on a graph larger than the cache, so the second
    /// core hides the shorter one almost entirely.
    ///
    /// - Complexity: O(*n* + *e*) on each thread.
    public func componentsAndPathsConcurrently() -> (Components, PathTree) {
        let results = ConcurrentResults()
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            if part == 0 {
                results.components = strongComponents()
            } else {
                results.tree = paths()
            }
        }
        return (
            results.components ?? strongComponents(), results.tree ?? paths()
        )
    }

    /// The components and the path tree on two threads (the name of earlier versions).
    @available(*, deprecated, renamed: "componentsAndPathsConcurrently()")
    public func componentsAndRootPathsConcurrently() -> (Components, PathTree) {
        componentsAndPathsConcurrently()
    }
}

/// The two results of ``CompactGraph/componentsAndPathsConcurrently()``.
///
/// `@unchecked Sendable`: each field is written by exactly one iteration of one
/// `concurrentPerform`, and read only after it returns (which orders the writes before the
/// reads).
private final class ConcurrentResults: @unchecked Sendable {
    var components: CompactGraph.Components?
    var tree: CompactGraph.PathTree?
}
