import StackTraces

/// An immutable copy of the retain graph, indexed for analysis.
///
/// Take one from a ``LiveGraph`` with ``LiveGraph/snapshot()``, or build one from nodes and
/// references for a synthetic graph. Analysis never touches the live graph, so it never blocks
/// recording.
///
/// ```swift
/// let snapshot = LiveGraph.shared.snapshot()
/// for cycle in snapshot.stronglyConnectedComponents().cycles { print(cycle) }
/// ```
///
/// A snapshot is a view over a ``/ObjectGraph/CompactGraph``, the representation every view of
/// the heap shares: nodes are numbered by identity, references are stored by holder in
/// compressed sparse rows (retaining ones first) with a reverse index by target, type names,
/// labels and roles are interned, and creation traces and timer state sit in sparse side
/// tables. ``Node`` and ``Reference`` values are made when asked for, so a
/// snapshot of a million objects holds no `String` or `Node` per object; ``nodes`` and
/// ``references`` build whole arrays and cost O(*n*) and O(*r*) per call.
public struct GraphSnapshot: Sendable {
    /// The snapshot as a compact graph, for analyses of your own at scale: one node per recorded
    /// node, numbered in identity order, each with its ``ObjectID``'s raw value as its key
    /// (``/ObjectGraph/CompactGraph/key(of:)``); one edge per reference.
    public let graph: CompactGraph
    /// Identity to node number.
    let nodeIndex: NodeIndex
    /// Sparse node data, by node number.
    let nodeExtras: [UInt32: NodeExtras]
    /// Reference identities and traces, by edge.
    let referenceIDs: [ReferenceID]
    let referenceTraces: [Int: StackTrace]
}

/// What few nodes have, kept in a sparse table beside a snapshot's columns.
struct NodeExtras: Sendable {
    var trace: StackTrace?
    var timer: TimerInfo?
    /// A note on a root (a run loop whose thread has exited).
    var note: String?
}

extension GraphSnapshot {
    /// Creates a snapshot of the given nodes and references.
    ///
    /// References naming a node that is not in `nodes` are dropped; if two nodes share an
    /// identity, the first is kept.
    ///
    /// - Complexity: O(*n* + *r*) for *n* nodes with dense identities and *r* references;
    ///   O(*n* log *n* + *r* log *n*) when identities are sparse.
    public init(nodes: [Node], references: [Reference]) {
        var builder = Builder(expectedNodes: nodes.count, expectedReferences: references.count)
        for node in nodes { builder.addNode(node) }
        for reference in references { builder.addReference(reference) }
        self = builder.build()
    }

    /// Every node, sorted by identity.
    ///
    /// - Complexity: O(*n*): the nodes are made on each call.
    public var nodes: [Node] { (0..<graph.nodeCount).map { node(at: UInt32($0)) } }

    /// Every reference whose two ends are in ``nodes``, grouped by holder (in identity order),
    /// strong ones first in each group.
    ///
    /// - Complexity: O(*r*): the references are made on each call.
    public var references: [Reference] {
        var result: [Reference] = []
        result.reserveCapacity(graph.edgeCount)
        for holder in 0..<UInt32(graph.nodeCount) {
            for edge in graph.outEdges(of: holder) {
                result.append(reference(at: UInt32(edge), from: holder))
            }
        }
        return result
    }

    /// The number of nodes.
    public var nodeCount: Int { graph.nodeCount }
    /// The number of references.
    public var referenceCount: Int { graph.edgeCount }

    /// The number of the node `id` in ``graph``.
    ///
    /// - Complexity: O(1) for dense identities, O(log *n*) otherwise.
    func index(of id: ObjectID) -> Int? {
        nodeIndex.position(of: id)
    }

    /// The identity of node number `node`.
    func id(at node: UInt32) -> ObjectID { ObjectID(rawValue: graph.key(of: node)) }

    /// The node with the given identity, if the snapshot has it.
    ///
    /// - Complexity: O(1) for dense identities, O(log *n*) otherwise.
    public func node(_ id: ObjectID) -> Node? {
        index(of: id).map { node(at: UInt32($0)) }
    }

    /// The type name of `id`, without making its ``Node``.
    func typeName(of id: ObjectID) -> String? {
        index(of: id).map { graph.typeName(of: UInt32($0)) }
    }

    /// The references that `id` holds, of every kind, retaining ones first.
    ///
    /// - Complexity: O(out-degree), plus O(log *n*) when identities are sparse.
    public func references(from id: ObjectID) -> ArraySlice<Reference> {
        guard let index = index(of: id) else { return [] }
        let holder = UInt32(index)
        return ArraySlice(
            graph.outEdges(of: holder).map { reference(at: UInt32($0), from: holder) })
    }

    /// The references that point at `id`, of every kind, retaining ones first.
    ///
    /// - Complexity: O(in-degree), plus O(log *n*) when identities are sparse.
    public func references(to id: ObjectID) -> [Reference] {
        guard let index = index(of: id) else { return [] }
        return graph.incoming(to: UInt32(index)).map { reference(at: $0.edge, from: $0.from) }
    }

    /// The roots of the graph.
    ///
    /// - Complexity: O(*roots*).
    public var roots: [Node] { graph.roots.map { node(at: $0.node) } }

    /// A snapshot with `extra` references added, such as references discovered by inspecting
    /// memory; one that repeats a reference already present (same ends, ownership and role) is
    /// dropped.
    ///
    /// - Complexity: O(*n* + *r*): the compact graph is built again (a leak check gathers its
    ///   discoveries in one ``Builder`` instead, see ``LiveGraph/snapshot(_:adding:)``).
    public func adding(_ extra: [Reference]) -> GraphSnapshot {
        adding(nodes: [], references: extra)
    }

    /// A snapshot with `extraNodes` and `extraReferences` added (nodes already present keep
    /// their data; see ``adding(_:)-([Reference])``).
    ///
    /// - Complexity: O(*n* + *r*) (see ``adding(_:)-([Reference])``).
    public func adding(nodes extraNodes: [Node], references extraReferences: [Reference])
        -> GraphSnapshot
    {
        var additions = Builder()
        for node in extraNodes { additions.addNode(node) }
        for reference in extraReferences { additions.addReference(reference) }
        return adding(additions)
    }

    /// A snapshot with what `additions` collected added (nodes already present keep their data;
    /// see ``adding(_:)``).
    ///
    /// - Complexity: O(*n* + *r*) (see ``adding(_:)``).
    public func adding(_ additions: Builder) -> GraphSnapshot {
        guard !additions.isEmpty else { return self }
        var builder = Builder(self)
        builder.merge(additions)
        return builder.build()
    }
}
