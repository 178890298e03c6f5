import RetainGraph

/// What the leaked objects of one check keep alive, from one dominator tree of the whole heap
/// the check read (``/RetainGraph/DiscoveredHeap``, handed over by the heap census).
///
/// A check may make many reports from one snapshot: the tree is computed once, at the first
/// report that asks, and every report of the check reads its figures from it in O(1).
///
/// A check without a whole heap has no figures: its snapshot copies only what holds the
/// watched objects, never what they hold, so any count read from it would be too small.
final class RetainedFigures {
    let heap: DiscoveredHeap?
    private var tree: CompactGraph.DominatorTree?

    init(_ heap: DiscoveredHeap?) {
        self.heap = heap
    }

    /// What `id` keeps alive: its retained size (`nil` when the heap's graph has no sizes) and
    /// its retained count, itself included; `nil` when the heap does not hold `id` or no root
    /// of the heap reaches it (the tree then says nothing about it).
    ///
    /// - Complexity: O(1) after the first call, which computes the dominator tree
    ///   (O((*n* + *e*) α(*n*)) for the heap's *n* objects and *e* strong references).
    func retained(by id: ObjectID) -> (bytes: Int?, count: Int)? {
        guard let heap, let node = heap.nodes[id] else { return nil }
        let tree = self.tree ?? heap.graph.dominatorTree()
        self.tree = tree
        guard tree.isReachable(node) else { return nil }
        // Every object has a size of its own: 0 means the graph was built without sizes.
        let bytes = heap.graph.size(of: node) > 0 ? Int(tree.retainedSize(of: node)) : nil
        return (bytes, tree.retainedCount(of: node))
    }
}
