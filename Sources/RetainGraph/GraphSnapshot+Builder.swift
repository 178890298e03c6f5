import StackTraces

extension GraphSnapshot {
    /// Collects nodes and references by identity, then builds a ``GraphSnapshot`` in one pass:
    /// the builder a live graph's snapshot, a synthetic graph and a leak check's discoverers all
    /// fill.
    ///
    /// Discoverers (``ReferenceDiscoverer``) add what they find to one builder; the check then
    /// takes the live graph's snapshot with those additions (``LiveGraph/snapshot(_:adding:)``),
    /// so the compact graph is built once per check, whatever the number of discoverers.
    ///
    /// ```swift
    /// var builder = GraphSnapshot.Builder()
    /// builder.addNode(id: owner, typeName: "App.Owner")
    /// builder.addNode(id: timer, typeName: "Foundation.Timer", kind: .timer)
    /// builder.addReference(from: owner, to: timer, ownership: .strong,
    ///                      role: .storedProperty(name: "timer"), origin: .reflection)
    /// let snapshot = builder.build()
    /// ```
    ///
    /// Node and edge columns are appended with no value or string copied per node: type names,
    /// labels and roles are interned as they come.
    public struct Builder {
        /// Nodes (in the order added) and every reference's flags and role number; the ends of
        /// references collected from the live graph's columns (by position of the node in the
        /// order added, or placed in rows), the rows' targets.
        var builder: CompactGraph.Builder
        /// Sparse per-node data, by the order added.
        var extras: [Int: NodeExtras] = [:]
        /// Reference ends by identity (resolved when built); a builder uses either these or
        /// `builder`'s, never both.
        var froms: [ObjectID] = []
        var tos: [ObjectID] = []
        /// Each reference's identity (a slot of `noSlot` for none), by the order added, or by
        /// edge when ``placedRows`` is set.
        var referenceIDs: [ReferenceID] = []
        /// Creation traces, keyed like ``referenceIDs``.
        var referenceTraces: [Int: StackTrace] = [:]
        /// The references already placed in the compact graph's rows by node number (a live
        /// graph's full snapshot, whose nodes were numbered in identity order first).
        var placedRows: PlacedRows?
        /// The identity index, when the nodes were numbered before the references were placed.
        var nodeIndex: NodeIndex?
        /// The whole heap a discoverer read for this check, if one did (the heap census): the
        /// check's reports say from it what each leaked object retains. It is not part of the
        /// snapshot built.
        public var discoveredHeap: DiscoveredHeap?

        /// Out-edge rows: for each node, its references, retaining ones first (their targets,
        /// flags and roles are `builder`'s, by edge).
        struct PlacedRows {
            let outStart: [UInt32]
            let strongOutEnd: [UInt32]
        }

        /// Creates an empty builder.
        ///
        /// - Parameters:
        ///   - expectedNodes: Room for this many nodes.
        ///   - expectedReferences: Room for this many references.
        public init(expectedNodes: Int = 0, expectedReferences: Int = 0) {
            builder = CompactGraph.Builder(
                expectedNodes: expectedNodes, expectedEdges: expectedReferences)
            froms.reserveCapacity(expectedReferences)
            tos.reserveCapacity(expectedReferences)
            referenceIDs.reserveCapacity(expectedReferences)
        }

        /// Whether nothing was added.
        public var isEmpty: Bool { builder.nodeCount == 0 && builder.edgeFlags.isEmpty }

        /// The number of nodes added (a node added twice counts twice; the first is kept).
        public var nodeCount: Int { builder.nodeCount }
        /// The number of references added.
        public var referenceCount: Int { builder.edgeFlags.count }

        /// The identities of the nodes added and of both ends of every reference added, each
        /// once, in the order first met.
        ///
        /// - Complexity: O(*n* + *r*).
        public var mentionedIDs: [ObjectID] {
            var seen = Set<ObjectID>()
            let ids = builder.everyKey.map(ObjectID.init(rawValue:))
            return (ids + zip(froms, tos).flatMap { [$0, $1] }).filter { seen.insert($0).inserted }
        }

        /// Adds a node.
        ///
        /// - Parameters:
        ///   - id: Its identity; if another node of this identity was added first, that one is
        ///     kept.
        ///   - typeName: Its type name, such as `MyApp.Owner`.
        ///   - kind: What it stands for.
        ///   - label: A human label for reports.
        ///   - address: Its address, for display.
        ///   - size: Its size in bytes, when known.
        ///   - creationTrace: Where it was created.
        ///   - timer: Its timer state, for timers.
        ///   - note: A remark on a root (``Node/note``).
        public mutating func addNode(
            id: ObjectID, typeName: String, kind: NodeKind = .object, label: String? = nil,
            address: UInt? = nil, size: Int = 0, creationTrace: StackTrace? = nil,
            timer: TimerInfo? = nil, note: String? = nil
        ) {
            addNode(
                id: id, kind: kind, typeNumber: builder.intern(typeName), label: label,
                address: address, size: size, trace: creationTrace, timer: timer, note: note)
        }

        /// Adds a node given as a value.
        public mutating func addNode(_ node: Node) {
            addNode(
                id: node.id, typeName: node.typeName, kind: node.kind, label: node.label,
                address: node.address, creationTrace: node.creationTrace, timer: node.timer,
                note: node.note)
        }

        /// Adds a reference between two identities; a reference naming a node that is not in
        /// the built snapshot is dropped when it is built.
        ///
        /// - Parameters:
        ///   - from: The holder.
        ///   - to: The held.
        ///   - ownership: How `from` holds `to`.
        ///   - role: Why.
        ///   - origin: Declared, or found by reading memory.
        ///   - isLowPriority: Whether the path finder should prefer any other path (see
        ///     ``/ObjectGraph/CompactGraph/PathTree``); conservative references always are.
        ///   - creationTrace: Where the reference was made.
        public mutating func addReference(
            from: ObjectID, to: ObjectID, ownership: Ownership, role: ReferenceRole,
            origin: ReferenceOrigin = .declared, isLowPriority: Bool = false,
            creationTrace: StackTrace? = nil
        ) {
            addReference(
                id: nil, from: from, to: to,
                flags: CompactGraph.flags(ownership, origin, lowPriority: isLowPriority),
                roleNumber: builder.intern(role), trace: creationTrace)
        }

        /// Adds a reference given as a value.
        public mutating func addReference(_ reference: Reference) {
            addReference(
                id: reference.id, from: reference.from, to: reference.to,
                flags: CompactGraph.flags(
                    reference.ownership, reference.origin, lowPriority: reference.isLowPriority),
                roleNumber: builder.intern(reference.role), trace: reference.creationTrace)
        }

        /// Builds the snapshot: nodes sorted by identity (the first of nodes sharing one
        /// wins), references grouped by holder, retaining ones first, each group in the order
        /// added; references naming an unknown node are dropped.
        ///
        /// - Complexity: O(*n* + *r*) for dense identities (a live graph's), O(*n* log *n* +
        ///   *r*) otherwise.
        public consuming func build() -> GraphSnapshot { finish() }
    }
}

extension GraphSnapshot.Builder {
    mutating func addNode(
        id: ObjectID, kind: NodeKind, typeNumber: UInt32, label: String?, address: UInt?,
        size: Int = 0, trace: StackTrace?, timer: TimerInfo?, note: String? = nil
    ) {
        let position = builder.nodeCount
        if case .root(let rootKind) = kind { builder.addRoot(UInt32(position), kind: rootKind) }
        builder.addNode(
            kind: kind.compactKind, typeNameNumber: typeNumber,
            labelNumber: label.map { builder.intern($0) } ?? 0, address: address ?? 0,
            key: id.rawValue, size: size)
        if trace != nil || timer != nil || note != nil {
            extras[position] = NodeExtras(trace: trace, timer: timer, note: note)
        }
    }

    mutating func addReference(
        id: ReferenceID?, from: ObjectID, to: ObjectID, flags: UInt8, roleNumber: UInt32,
        trace: StackTrace?
    ) {
        if let trace { referenceTraces[froms.count] = trace }
        froms.append(from)
        tos.append(to)
        builder.edgeFlags.append(flags)
        builder.edgeRoles.append(roleNumber)
        referenceIDs.append(id ?? ReferenceID(slot: GraphStorage.noSlot, generation: 0))
    }
}

extension GraphSnapshot.Builder {
    /// A builder holding `snapshot` as it is (its rows placed already), to add to.
    ///
    /// - Complexity: O(*n*) (the identities); the columns are shared, not copied.
    init(_ snapshot: GraphSnapshot) {
        let graph = snapshot.graph
        builder = CompactGraph.Builder()
        builder.strings = graph.strings
        builder.roles = graph.roles
        builder.kinds = graph.kinds
        builder.typeNames = graph.typeNames
        builder.labels = graph.labels
        builder.labelStart = graph.labelStart
        builder.addresses = graph.addresses
        builder.keys = graph.keys
        builder.sizes = graph.sizes
        builder.rootNodes = graph.rootNodes
        builder.rootKinds = graph.rootKinds
        extras = Dictionary(
            uniqueKeysWithValues: snapshot.nodeExtras.map { (Int($0.key), $0.value) })
        builder.targets = graph.targets
        builder.edgeFlags = graph.edgeFlags
        builder.edgeRoles = graph.edgeRoles
        placedRows = PlacedRows(outStart: graph.outStart, strongOutEnd: graph.strongOutEnd)
        nodeIndex = snapshot.nodeIndex
        referenceIDs = snapshot.referenceIDs
        referenceTraces = snapshot.referenceTraces
    }
}

extension GraphSnapshot.Builder {
    /// The references added so far that `id` holds (by identity), as values: what a discoverer
    /// sees of the ones that ran before it.
    ///
    /// - Complexity: O(*r*) for the *r* references added.
    public func references(from id: ObjectID) -> [Reference] {
        froms.indices.filter { froms[$0] == id }.map { index in
            let flags = builder.edgeFlags[index]
            let origin: ReferenceOrigin =
                flags & CompactGraph.foundInHeapFlag != 0
                ? .heap : flags & CompactGraph.discoveredFlag != 0 ? .reflection : .declared
            return Reference(
                from: froms[index], to: tos[index], ownership: Ownership(byte: flags),
                role: builder.roles[builder.edgeRoles[index]],
                creationTrace: referenceTraces[index],
                origin: origin, isLowPriority: CompactGraph.isLowPriority(flags))
        }
    }
}
