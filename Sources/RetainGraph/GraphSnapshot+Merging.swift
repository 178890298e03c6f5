import StackTraces

extension GraphSnapshot.Builder {
    /// Adds everything `additions` collected (a check's discoveries) to these parts (a live
    /// graph's), so that one compact graph is built for both.
    ///
    /// Nodes these parts have keep their data (the live graph's labels, kinds and timer state
    /// win); an added reference that repeats one already present (same holder, target,
    /// ownership and role, declared or not) is dropped, so declaring an edge and discovering
    /// it does not double it.
    ///
    /// - Complexity: O(*n* + *r*) for these parts, plus O(*a*) for the additions.
    mutating func merge(_ additions: GraphSnapshot.Builder) {
        guard !additions.isEmpty else { return }
        useIdentities()
        // Roles and type names renumbered into these parts' tables.
        let typeNumber = (0..<UInt32(additions.builder.strings.count)).map {
            builder.intern(additions.builder.strings[$0])
        }
        let roleNumber = (0..<UInt32(additions.builder.roles.count)).map {
            builder.intern(additions.builder.roles[$0])
        }
        var rootKindOf: [Int: RootKind] = [:]
        for (node, kind) in zip(additions.builder.rootNodes, additions.builder.rootKinds) {
            rootKindOf[Int(node)] = kind
        }
        let other = additions.builder
        for position in 0..<other.nodeCount {
            let kind = NodeKind(other.kinds[position]) { rootKindOf[position] ?? .process }
            let label = other.label(at: position)
            addNode(
                id: ObjectID(rawValue: other.key(at: position)), kind: kind,
                typeNumber: typeNumber[Int(other.typeNames[position])],
                label: label == 0 ? nil : other.strings[label],
                address: other.addresses[position] == 0 ? nil : other.addresses[position],
                size: other.sizes.isEmpty ? 0 : Int(other.sizes[position]),
                trace: additions.extras[position]?.trace, timer: additions.extras[position]?.timer)
        }
        fillMissingTraces()
        // References already present, by ends, ownership and role.
        struct Key: Hashable {
            let from: ObjectID, to: ObjectID, ownership: UInt8, role: UInt32
        }
        var present = Set<Key>()
        present.reserveCapacity(froms.count + additions.froms.count)
        for index in froms.indices {
            present.insert(
                Key(
                    from: froms[index], to: tos[index], ownership: builder.edgeFlags[index] & 7,
                    role: builder.edgeRoles[index]))
        }
        for index in additions.froms.indices {
            let role = roleNumber[Int(additions.builder.edgeRoles[index])]
            let flags = additions.builder.edgeFlags[index]
            let key = Key(
                from: additions.froms[index], to: additions.tos[index], ownership: flags & 7,
                role: role)
            guard present.insert(key).inserted else { continue }
            addReference(
                id: nil, from: key.from, to: key.to, flags: flags, roleNumber: role,
                trace: additions.referenceTraces[index])
        }
    }

    /// Gives each node that is kept (the first of its identity) the creation trace of a later
    /// node of the same identity when it has none: the live graph's node of a watched object
    /// keeps its data, but takes the trace a discoverer found (where the census saw it made),
    /// so reports can say where it was made.
    ///
    /// - Complexity: O(*n*) for *n* nodes.
    private mutating func fillMissingTraces() {
        guard !extras.isEmpty else { return }
        let ids = builder.everyKey.map(ObjectID.init(rawValue:))
        var keptPosition: [ObjectID: Int] = [:]
        for (position, id) in ids.enumerated() where keptPosition[id] == nil {
            keptPosition[id] = position
        }
        for position in ids.indices {
            guard let trace = extras[position]?.trace, let kept = keptPosition[ids[position]],
                kept != position, extras[kept]?.trace == nil
            else { continue }
            extras[kept, default: NodeExtras()].trace = trace
        }
    }

    /// Turns references given by position (a live graph's columns, placed in rows or not)
    /// into references given by identity, which additions can join.
    private mutating func useIdentities() {
        if let rows = placedRows {
            var sources: [UInt32] = []
            sources.reserveCapacity(builder.targets.count)
            for node in 0..<(rows.outStart.count - 1) {
                let count = Int(rows.outStart[node + 1] - rows.outStart[node])
                sources.append(contentsOf: repeatElement(UInt32(node), count: count))
            }
            builder.sources = sources
            placedRows = nil
            nodeIndex = nil
        }
        guard froms.isEmpty, !builder.sources.isEmpty else { return }
        froms = builder.sources.map { ObjectID(rawValue: builder.key(at: Int($0))) }
        tos = builder.targets.map { ObjectID(rawValue: builder.key(at: Int($0))) }
        builder.sources = []
        builder.targets = []
    }
}
