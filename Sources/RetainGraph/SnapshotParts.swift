import StackTraces

/// A snapshot being collected: node and reference columns in flat arrays, sorted into a
/// ``GraphSnapshot`` by ``finish()``.
///
/// ``LiveGraph/snapshot()`` fills one under the graph's lock straight from its records (no
/// ``Node`` or ``Reference`` value, no string copy per node: type names, labels and roles are
/// interned), and finishes it after the lock; ``GraphSnapshot/init(nodes:references:)`` goes
/// through the same path.
struct SnapshotParts {
    var builder: CompactGraph.Builder
    /// Node columns, in the order added (not yet by identity).
    var ids: [ObjectID] = []
    var kinds: [CompactGraph.NodeKind] = []
    var typeNames: [UInt32] = []
    var labels: [UInt32] = []
    var addresses: [UInt] = []
    /// Sparse per-node data, keyed by the order added.
    var rootKinds: [Int: RootKind] = [:]
    var traces: [Int: StackTrace] = [:]
    var timers: [Int: TimerInfo] = [:]
    /// Reference columns, ends by identity.
    var froms: [ObjectID] = []
    var tos: [ObjectID] = []
    var edgeKinds: [CompactGraph.EdgeKind] = []
    var edgeRoles: [UInt32] = []
    var discovered: [Bool] = []
    /// Each reference's identity (a slot of `noSlot` for none), by the order added.
    var referenceIDs: [ReferenceID] = []
    var referenceTraces: [Int: StackTrace] = [:]
    /// The roles, by interned number; the builder's string of a role is its unique key.
    var roles: [ReferenceRole] = []
    var roleNumbers: [ReferenceRole: UInt32] = [:]
    /// A few recent roles, compared before hashing (a run of edges often repeats a role).
    var recentRoles: [(role: ReferenceRole, number: UInt32)] = []
    /// Type numbers by type, for nodes named from their metatype.
    var typeNumbers: [ObjectIdentifier: UInt32] = [:]

    init(expectedNodes: Int, expectedReferences: Int) {
        builder = CompactGraph.Builder(
            expectedNodes: expectedNodes, expectedEdges: expectedReferences)
        ids.reserveCapacity(expectedNodes)
        kinds.reserveCapacity(expectedNodes)
        typeNames.reserveCapacity(expectedNodes)
        labels.reserveCapacity(expectedNodes)
        addresses.reserveCapacity(expectedNodes)
        froms.reserveCapacity(expectedReferences)
        tos.reserveCapacity(expectedReferences)
        edgeKinds.reserveCapacity(expectedReferences)
        edgeRoles.reserveCapacity(expectedReferences)
        discovered.reserveCapacity(expectedReferences)
        referenceIDs.reserveCapacity(expectedReferences)
    }

    /// The interned number of the type name of `type`, computed once per type.
    mutating func typeNumber(of type: Any.Type?) -> UInt32 {
        guard let type else { return builder.intern("?") }
        let key = ObjectIdentifier(type)
        if let known = typeNumbers[key] { return known }
        let number = builder.intern(TypeNames.name(of: type))
        typeNumbers[key] = number
        return number
    }

    mutating func addNode(
        id: ObjectID, kind: NodeKind, typeNumber: UInt32, label: String?, address: UInt?,
        trace: StackTrace?, timer: TimerInfo?
    ) {
        let position = ids.count
        ids.append(id)
        switch kind {
        case .object: kinds.append(.object)
        case .timer: kinds.append(.timer)
        case .proxy: kinds.append(.proxy)
        case .closure: kinds.append(.closure)
        case .root(let rootKind):
            kinds.append(.root)
            rootKinds[position] = rootKind
        }
        typeNames.append(typeNumber)
        labels.append(label.map { builder.intern($0) } ?? 0)
        addresses.append(address ?? 0)
        if let trace { traces[position] = trace }
        if let timer { timers[position] = timer }
    }

    mutating func addNode(_ node: Node) {
        addNode(
            id: node.id, kind: node.kind, typeNumber: builder.intern(node.typeName),
            label: node.label, address: node.address, trace: node.creationTrace,
            timer: node.timer)
    }

    mutating func roleNumber(_ role: ReferenceRole) -> UInt32 {
        for recent in recentRoles where recent.role == role { return recent.number }
        let number: UInt32
        if let known = roleNumbers[role] {
            number = known
        } else {
            // A key no two roles share (descriptions can: `.x` and a declared ".x").
            number = builder.intern("\(role.name)\u{1}\(role.detail ?? "")")
            if roles.count <= Int(number) {
                roles.append(
                    contentsOf: repeatElement(.resumed, count: Int(number) + 1 - roles.count))
            }
            roles[Int(number)] = role
            roleNumbers[role] = number
        }
        if recentRoles.count == 4 { recentRoles.removeFirst() }
        recentRoles.append((role, number))
        return number
    }

    mutating func addReference(
        id: ReferenceID?, from: ObjectID, to: ObjectID, kind: ReferenceKind,
        role: ReferenceRole, trace: StackTrace?, isDiscovered: Bool
    ) {
        if let trace { referenceTraces[froms.count] = trace }
        froms.append(from)
        tos.append(to)
        switch kind {
        case .strong: edgeKinds.append(.strong)
        case .weak: edgeKinds.append(.weak)
        case .unowned: edgeKinds.append(.unowned)
        }
        edgeRoles.append(roleNumber(role))
        discovered.append(isDiscovered)
        referenceIDs.append(id ?? ReferenceID(slot: GraphStorage.noSlot, generation: 0))
    }

    mutating func addReference(_ reference: Reference) {
        addReference(
            id: reference.id, from: reference.from, to: reference.to, kind: reference.kind,
            role: reference.role, trace: reference.creationTrace,
            isDiscovered: reference.isDiscovered)
    }
}
