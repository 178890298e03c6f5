import StackTraces

/// A snapshot being collected: node and reference columns in flat arrays, sorted into a
/// ``GraphSnapshot`` by ``finish()``.
///
/// ``LiveGraph/snapshot()`` fills one under the graph's lock straight from its records (no
/// ``Node`` or ``Reference`` value, no string copy per node: type names, labels and roles are
/// interned), and finishes it after the lock; ``GraphSnapshot/init(nodes:references:)`` goes
/// through the same path.
struct SnapshotParts {
    /// Nodes (in the order added) and edges, by provisional number.
    var builder: CompactGraph.Builder
    /// Node identities, in the order added.
    var ids: [ObjectID] = []
    /// Sparse per-node data, by the order added.
    var rootKinds: [(position: Int, kind: RootKind)] = []
    var traces: [(position: Int, trace: StackTrace)] = []
    var timers: [(position: Int, timer: TimerInfo)] = []
    var notes: [(position: Int, note: String)] = []
    /// Reference columns, ends by identity (resolved by ``finish()``).
    var froms: [ObjectID] = []
    var tos: [ObjectID] = []
    /// Reference ends by position of the node in the order added, for parts collected from
    /// the live graph's columns (which know positions already); a part uses either these or
    /// `froms`/`tos`, never both.
    var sourcePositions: [UInt32] = []
    var targetPositions: [UInt32] = []
    /// Each reference's kind, with bit 7 set when it was discovered (the compact graph's flags).
    var edgeFlags: [UInt8] = []
    var edgeRoles: [UInt32] = []
    /// Each reference's identity (a slot of `noSlot` for none), by the order added, or by edge
    /// when ``placedRows`` is set.
    var referenceIDs: [ReferenceID] = []
    /// Creation traces, keyed like ``referenceIDs``.
    var referenceTraces: [Int: StackTrace] = [:]
    /// The references already placed in the compact graph's rows by node number (parts
    /// collected from a live graph, whose nodes were numbered in identity order first).
    var placedRows: PlacedRows?
    /// The identity index, when the nodes were numbered before the references were placed.
    var nodeIndex: NodeIndex?

    /// Out-edge rows: for each node, its references, strong ones first.
    struct PlacedRows {
        let outStart: [UInt32]
        let strongOutEnd: [UInt32]
        let targets: [UInt32]
        /// The compact graph's edge flags.
        let flags: [UInt8]
        /// Role numbers in the builder's strings.
        let roles: [UInt32]
    }
    /// The roles, by the number of their key in the builder's strings.
    var roles: [ReferenceRole] = []
    var roleNumbers: [ReferenceRole: UInt32] = [:]
    /// The last roles met, compared before hashing (edges often repeat a few roles).
    var recentRoles = RecentRoles()
    /// Type numbers by type, for nodes named from their metatype, and the last type met.
    var typeNumbers: [ObjectIdentifier: UInt32] = [:]
    var lastType: (type: ObjectIdentifier, number: UInt32)?

    init(expectedNodes: Int, expectedReferences: Int) {
        builder = CompactGraph.Builder(
            expectedNodes: expectedNodes, expectedEdges: expectedReferences)
        ids.reserveCapacity(expectedNodes)
        sourcePositions.reserveCapacity(expectedReferences)
        targetPositions.reserveCapacity(expectedReferences)
        edgeFlags.reserveCapacity(expectedReferences)
        edgeRoles.reserveCapacity(expectedReferences)
        referenceIDs.reserveCapacity(expectedReferences)
    }

    /// The interned number of the type name of `type`, computed once per type.
    mutating func typeNumber(of type: Any.Type?) -> UInt32 {
        guard let type else { return builder.intern("?") }
        let key = ObjectIdentifier(type)
        if let lastType, lastType.type == key { return lastType.number }
        let number: UInt32
        if let known = typeNumbers[key] {
            number = known
        } else {
            number = builder.intern(TypeNames.name(of: type))
            typeNumbers[key] = number
        }
        lastType = (key, number)
        return number
    }

    mutating func addNode(
        id: ObjectID, kind: NodeKind, typeNumber: UInt32, label: String?, address: UInt?,
        trace: StackTrace?, timer: TimerInfo?, note: String? = nil
    ) {
        let position = ids.count
        ids.append(id)
        let compactKind: CompactGraph.NodeKind
        switch kind {
        case .object: compactKind = .object
        case .timer: compactKind = .timer
        case .proxy: compactKind = .proxy
        case .closure: compactKind = .closure
        case .root(let rootKind):
            compactKind = .root
            rootKinds.append((position, rootKind))
        }
        builder.addNode(
            kind: compactKind, typeNameNumber: typeNumber,
            labelNumber: label.map { builder.intern($0) } ?? 0, address: address ?? 0,
            key: id.rawValue)
        if let trace { traces.append((position, trace)) }
        if let timer { timers.append((position, timer)) }
        if let note { notes.append((position, note)) }
    }

    mutating func addNode(_ node: Node) {
        addNode(
            id: node.id, kind: node.kind, typeNumber: builder.intern(node.typeName),
            label: node.label, address: node.address, trace: node.creationTrace,
            timer: node.timer, note: node.note)
    }

    mutating func roleNumber(_ role: ReferenceRole) -> UInt32 {
        if let number = recentRoles.number(of: role) { return number }
        let number = roleNumbers[role] ?? internRole(role)
        recentRoles.remember(role, as: number)
        return number
    }

    /// The number of `role`'s key in the builder's strings, recording the role under it.
    mutating func internRole(_ role: ReferenceRole) -> UInt32 {
        if let known = roleNumbers[role] { return known }
        // A key no two roles share (descriptions can: `.x` and a declared ".x").
        let number = builder.intern("\(role.name)\u{1}\(role.detail ?? "")")
        if roles.count <= Int(number) {
            roles.append(contentsOf: repeatElement(.resumed, count: Int(number) + 1 - roles.count))
        }
        roles[Int(number)] = role
        roleNumbers[role] = number
        return number
    }

    mutating func addReference(
        id: ReferenceID?, from: ObjectID, to: ObjectID, kind: ReferenceKind,
        role: ReferenceRole, trace: StackTrace?, isDiscovered: Bool, isFoundInHeap: Bool = false
    ) {
        if let trace { referenceTraces[froms.count] = trace }
        froms.append(from)
        tos.append(to)
        let edgeKind: CompactGraph.EdgeKind
        switch kind {
        case .strong: edgeKind = .strong
        case .weak: edgeKind = .weak
        case .unowned: edgeKind = .unowned
        }
        edgeFlags.append(
            edgeKind.rawValue | (isDiscovered ? 0x80 : 0) | (isFoundInHeap ? 0x40 : 0))
        edgeRoles.append(roleNumber(role))
        referenceIDs.append(id ?? ReferenceID(slot: GraphStorage.noSlot, generation: 0))
    }

    mutating func addReference(_ reference: Reference) {
        addReference(
            id: reference.id, from: reference.from, to: reference.to, kind: reference.kind,
            role: reference.role, trace: reference.creationTrace,
            isDiscovered: reference.isDiscovered, isFoundInHeap: reference.isFoundInHeap)
    }
}
