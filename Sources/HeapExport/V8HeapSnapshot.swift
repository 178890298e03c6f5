import ObjectGraph

/// A heap graph in the terms of V8's heap snapshot format (`.heapsnapshot`), the file Chrome
/// DevTools' Memory panel loads and Meta's memlab reads.
///
/// This is the neutral model the writer serialises: nodes with a V8 node type, a name, a
/// stable id and a self size; edges with a V8 edge type, a name (or an element index) and a
/// target; optional creation traces. It knows nothing of where the graph came from: the
/// adapter (``V8HeapSnapshot/init(graph:numbering:groupEdge:creationTrace:)`` for a compact
/// graph: a live graph's, a census's or an attached process's) decides what each object
/// becomes.
///
/// Node 0 is the synthetic root the format requires. Things that hold objects from outside the
/// heap go under named GC-root groups made with ``addRootGroup(named:through:)``:
///
/// ```swift
/// var snapshot = V8HeapSnapshot()
/// let tasks = snapshot.addRootGroup(named: "(Tasks)")
/// let task = snapshot.addNode(type: .object, name: "Task", id: 3, selfSize: 96)
/// let owner = snapshot.addNode(type: .object, name: "App.Owner", id: 5, selfSize: 32)
/// snapshot.addEdge(from: tasks, type: .element, index: 0, to: task)
/// snapshot.addEdge(from: task, type: .property, name: "captures Owner", to: owner)
/// try snapshot.write(toFile: "/tmp/app.heapsnapshot")
/// ```
///
/// How DevTools reads what this model writes (checked against `HeapSnapshot.ts` of
/// devtools-frontend and in a real Chromium, see `Tests/HeapExportTests`):
/// - The Summary groups nodes of type ``NodeType/object`` by name; ``NodeType/closure`` nodes
///   are all shown as "Function", so closure contexts are objects named for what they are.
///   Nodes of self size 0 are left out of the Summary.
/// - ``EdgeType/weak`` edges retain nothing: they count neither for distances nor for
///   dominators.
/// - Dominators and retained sizes are computed from the root over "essential" edges: not
///   weak, not a self edge, not a ``EdgeType/shortcut`` unless it leaves the root, and not an
///   edge from a node that no root shortcut reaches into one that a root shortcut reaches.
///   Root groups are therefore reached by shortcut edges: everything they hold is "owned", and
///   objects nothing holds do not bend the dominators of held ones (as in our own
///   `CompactGraph.DominatorTree`, which ignores unreachable objects). Retained sizes read
///   back from Chromium 156 equal the tree's (`Tests/HeapExportTests`).
/// - Comparison and "Objects allocated between snapshots" match objects by `id`; the latter
///   takes the largest odd id of each snapshot, so objects get odd ids (``objectID(_:)``) and
///   synthetic nodes even ones.
public struct V8HeapSnapshot: Sendable {
    /// A node's type, as V8 lists them in `snapshot.meta.node_types`.
    public enum NodeType: UInt8, CaseIterable, Sendable {
        case hidden, array, string, object, code, closure, regexp, number, native, synthetic
        case concatenatedString, slicedString, symbol, bigint, objectShape

        /// The name V8 writes in the file's meta data.
        public var formatName: String {
            switch self {
            case .concatenatedString: return "concatenated string"
            case .slicedString: return "sliced string"
            case .objectShape: return "object shape"
            default: return "\(self)"
            }
        }
    }

    /// An edge's type, as V8 lists them in `snapshot.meta.edge_types`.
    public enum EdgeType: UInt8, CaseIterable, Sendable {
        case context, element, property, `internal`, hidden, shortcut, weak

        /// Whether the edge is named by a number (an index) rather than a string.
        public var isIndexed: Bool { self == .element || self == .hidden }
    }

    /// One frame of a creation trace: a function and where it is.
    public struct Frame: Hashable, Sendable {
        /// The function's name.
        public var function: String
        /// The file or module it is in.
        public var script: String
        /// The 1-based line, 0 when unknown.
        public var line: Int
        /// The 1-based column, 0 when unknown.
        public var column: Int

        /// Creates a frame.
        public init(function: String, script: String = "", line: Int = 0, column: Int = 0) {
            self.function = function
            self.script = script
            self.line = line
            self.column = column
        }
    }

    /// The synthetic root every snapshot starts with.
    public static let root = 0

    // Nodes, by index.
    var nodeTypes: [UInt8] = []
    var nodeNames: [UInt32] = []
    var nodeIDs: [UInt64] = []
    var nodeSizes: [UInt32] = []
    var nodeTraces: [UInt32] = []
    // Edges, in the order added.
    var edgeSources: [UInt32] = []
    var edgeTypes: [UInt8] = []
    var edgeNames: [UInt32] = []
    var edgeTargets: [UInt32] = []
    /// Strings, by index; index 0 is "".
    var strings = InternedStrings()
    /// The creation-trace tree and the functions it names.
    var traces = TraceTree()
    var nextSyntheticID: UInt64 = 2

    /// Creates a snapshot holding only the synthetic root.
    ///
    /// - Parameters:
    ///   - expectedNodes: Room to reserve for nodes.
    ///   - expectedEdges: Room to reserve for edges.
    public init(expectedNodes: Int = 0, expectedEdges: Int = 0) {
        nodeTypes.reserveCapacity(expectedNodes + 1)
        nodeNames.reserveCapacity(expectedNodes + 1)
        nodeIDs.reserveCapacity(expectedNodes + 1)
        nodeSizes.reserveCapacity(expectedNodes + 1)
        nodeTraces.reserveCapacity(expectedNodes + 1)
        edgeSources.reserveCapacity(expectedEdges)
        edgeTypes.reserveCapacity(expectedEdges)
        edgeNames.reserveCapacity(expectedEdges)
        edgeTargets.reserveCapacity(expectedEdges)
        addNode(type: .synthetic, nameIndex: 0, id: 0, selfSize: 0)
    }

    /// The number of nodes, the synthetic root and root groups included.
    public var nodeCount: Int { nodeTypes.count }
    /// The number of edges.
    public var edgeCount: Int { edgeTargets.count }

    /// The id an object with the caller's stable number `number` gets: `2 × number + 1`.
    ///
    /// DevTools takes odd ids for heap objects (its "objects allocated between snapshots"
    /// filter uses the largest odd id of each snapshot) and even ones for everything else.
    public static func objectID(_ number: UInt64) -> UInt64 { number &* 2 &+ 1 }

    /// The index of `string` in the string table, adding it if new.
    public mutating func intern(_ string: String) -> UInt32 { strings.intern(string) }

    /// Adds a node.
    ///
    /// - Parameters:
    ///   - type: Its V8 type; Swift objects are ``NodeType/object``.
    ///   - name: Its name; for objects, the class name the Summary groups by.
    ///   - id: A number stable across snapshots of one process (see ``objectID(_:)``).
    ///   - selfSize: Its own size in bytes.
    ///   - trace: Its creation trace from ``addTrace(_:)``, 0 for none.
    /// - Returns: The node's index, for ``addEdge(from:type:name:to:)``.
    /// - Complexity: Amortised O(1) plus one hash of `name`.
    @discardableResult
    public mutating func addNode(
        type: NodeType, name: String, id: UInt64, selfSize: UInt32, trace: UInt32 = 0
    ) -> Int {
        addNode(type: type, nameIndex: intern(name), id: id, selfSize: selfSize, trace: trace)
    }

    /// Adds a node whose name is already interned (``intern(_:)``).
    @discardableResult
    public mutating func addNode(
        type: NodeType, nameIndex: UInt32, id: UInt64, selfSize: UInt32, trace: UInt32 = 0
    ) -> Int {
        nodeTypes.append(type.rawValue)
        nodeNames.append(nameIndex)
        nodeIDs.append(id)
        nodeSizes.append(selfSize)
        nodeTraces.append(trace)
        return nodeTypes.count - 1
    }

    /// Adds a GC-root group: a synthetic node named `name` (V8 style: `"(Tasks)"`), held by
    /// the root, under which holders outside the heap go.
    ///
    /// - Parameters:
    ///   - name: The group's name.
    ///   - edge: How the root holds the group. ``EdgeType/shortcut`` (the default): DevTools'
    ///     `HeapSnapshot.ts` then ignores edges from objects no group reaches into objects a
    ///     group reaches when it computes dominators, as `CompactGraph.DominatorTree` ignores
    ///     unreachable objects. ``EdgeType/element`` is how V8 hangs its own `(GC roots)`;
    ///     Chromium 156 gave the same retained sizes with either on the tests' graphs.
    /// - Returns: The group's index.
    public mutating func addRootGroup(named name: String, through edge: EdgeType = .shortcut)
        -> Int
    {
        let group = addNode(
            type: .synthetic, nameIndex: intern(name), id: nextSyntheticID, selfSize: 0)
        nextSyntheticID += 2
        if edge.isIndexed {
            addEdge(from: Self.root, type: edge, index: UInt32(nodeCount - 1), to: group)
        } else {
            addEdge(from: Self.root, type: edge, name: name, to: group)
        }
        return group
    }

    /// Adds an edge named by a string (every type but ``EdgeType/element`` and
    /// ``EdgeType/hidden``, which take ``addEdge(from:type:index:to:)``).
    ///
    /// Edges naming a node that does not exist are dropped when the file is written.
    public mutating func addEdge(from: Int, type: EdgeType, name: String, to: Int) {
        addEdge(from: from, type: type, nameOrIndex: intern(name), to: to)
    }

    /// Adds an edge named by an index (``EdgeType/element`` or ``EdgeType/hidden``).
    public mutating func addEdge(from: Int, type: EdgeType, index: UInt32, to: Int) {
        addEdge(from: from, type: type, nameOrIndex: index, to: to)
    }

    /// Adds an edge whose name is an interned string's index (or, for indexed types, the
    /// index itself).
    public mutating func addEdge(from: Int, type: EdgeType, nameOrIndex: UInt32, to: Int) {
        edgeSources.append(UInt32(truncatingIfNeeded: from))
        edgeTypes.append(type.rawValue)
        edgeNames.append(nameOrIndex)
        edgeTargets.append(UInt32(truncatingIfNeeded: to))
    }

    /// Records a creation trace, innermost frame first, and returns its trace node id for
    /// ``addNode(type:name:id:selfSize:trace:)``.
    ///
    /// Traces that share outer frames share tree nodes, as V8's allocation tracker writes them.
    public mutating func addTrace(_ frames: [Frame]) -> UInt32 {
        if traces.functions.isEmpty {
            _ = traces.function(name: intern("(root)"), script: 0, line: 0, column: 0)
        }
        var functionIndex: [UInt32] = []
        for frame in frames.reversed() {
            functionIndex.append(
                traces.function(
                    name: intern(frame.function), script: intern(frame.script), line: frame.line,
                    column: frame.column))
        }
        return traces.node(path: functionIndex)
    }
}
