import HeapGraph
import ObjectGraph

/// What each task of a heap keeps alive, from the heap's dominator tree: a task's retained
/// size, and the objects it dominates (were the task freed, they would be too), counted by
/// type.
struct TaskRetentions {
    private var byTask: [UInt: TaskRetention] = [:]

    /// The retentions of the tasks at `tasks` (addresses of `heap`'s objects).
    ///
    /// - Complexity: O(*n* + *e*) for the dominator tree of a heap of *n* nodes and *e*
    ///   edges, then O(*n*) to attribute every object to the nearest task that dominates it.
    init(heap: HeapSnapshot, tasks: [UInt]) {
        let graph = heap.graph
        var isTask = [Bool](repeating: false, count: graph.nodeCount)
        var taskNodes: [(node: CompactGraph.NodeID, address: UInt)] = []
        for address in tasks {
            guard let id = heap.object(at: address) else { continue }
            isTask[Int(id.rawValue)] = true
            taskNodes.append((CompactGraph.NodeID(id.rawValue), address))
        }
        guard !taskNodes.isEmpty else { return }
        let tree = graph.dominatorTree()
        // nearest[n]: the task at or above n in the dominator tree (-1: none; -2: not known).
        var nearest = [Int32](repeating: -2, count: graph.nodeCount)
        var path: [CompactGraph.NodeID] = []
        var counts: [Int32: [UInt32: (count: Int, bytes: Int)]] = [:]
        for object in 0..<CompactGraph.NodeID(heap.objectCount) where !isTask[Int(object)] {
            path.removeAll(keepingCapacity: true)
            var node = object
            var found: Int32 = -1
            while true {
                if nearest[Int(node)] != -2 {
                    found = nearest[Int(node)]
                    break
                }
                if isTask[Int(node)] {
                    found = Int32(node)
                    nearest[Int(node)] = found
                    break
                }
                path.append(node)
                guard let up = tree.immediateDominator(of: node) else { break }
                node = up
            }
            for step in path { nearest[Int(step)] = found }
            if found >= 0 {
                let type = graph.typeNameNumber(of: object)
                let known = counts[found, default: [:]][type] ?? (0, 0)
                counts[found, default: [:]][type] = (
                    known.count + 1, known.bytes + graph.size(of: object)
                )
            }
        }
        for (node, address) in taskNodes {
            let types = (counts[Int32(node)] ?? [:]).map { number, total in
                HeapTypeCount(
                    typeName: graph.strings[number], count: total.count, bytes: total.bytes)
            }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.typeName < $1.typeName }
            byTask[address] = TaskRetention(
                bytes: tree.retainedSize(of: node),
                objects: max(tree.retainedCount(of: node) - 1, 0), types: Array(types.prefix(5)))
        }
    }

    /// The retention of the task at `address`, if it is an object of the heap.
    func retention(of address: UInt) -> TaskRetention? { byTask[address] }
}
