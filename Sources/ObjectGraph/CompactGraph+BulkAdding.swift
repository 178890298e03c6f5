extension CompactGraph.Builder {
    /// Adds many nodes at once, given as parallel arrays, as a heap scan produces them.
    ///
    /// The nodes get no label and no key. When the builder holds no node yet, the arrays
    /// become its storage as they are (no copy): a scan of a million objects hands its columns
    /// over instead of appending a million nodes one by one.
    ///
    /// ```swift
    /// var builder = CompactGraph.Builder()
    /// let type = builder.intern("App.Entry")
    /// let added = builder.addNodes(
    ///     kinds: [.object, .object], typeNameNumbers: [type, type], addresses: [0x1000, 0x1040],
    ///     sizes: [32, 32])
    /// // added == 0..<2
    /// ```
    ///
    /// - Parameters:
    ///   - newKinds: What each node stands for.
    ///   - typeNameNumbers: Each node's type name, as numbered by ``intern(_:)-(String)``.
    ///   - newAddresses: Each node's address, `0` for none.
    ///   - newSizes: Each node's size in bytes; empty for unknown sizes.
    /// - Returns: The provisional numbers of the new nodes. Arrays of different lengths are cut
    ///   to the shortest (of the non-empty ones).
    /// - Complexity: O(1) into an empty builder, O(*k*) for *k* nodes otherwise.
    @discardableResult
    public mutating func addNodes(
        kinds newKinds: [CompactGraph.NodeKind], typeNameNumbers: [UInt32],
        addresses newAddresses: [UInt], sizes newSizes: [UInt32] = []
    ) -> Range<CompactGraph.NodeID> {
        let first = CompactGraph.NodeID(kinds.count)
        var count = min(newKinds.count, typeNameNumbers.count, newAddresses.count)
        if !newSizes.isEmpty { count = min(count, newSizes.count) }
        sizes.appendOptional(newSizes, count: count, after: kinds.count)
        kinds.adoptOrAppend(newKinds, count: count)
        typeNames.adoptOrAppend(typeNameNumbers, count: count)
        addresses.adoptOrAppend(newAddresses, count: count)
        // No labels and no keys: columns that are still empty stay so (12 bytes a node less
        // for a heap's millions of objects); others get zeros.
        labels.appendOptional([], count: count, after: Int(first) - labelStart)
        keys.appendOptional([], count: count, after: Int(first))
        return first..<first + CompactGraph.NodeID(count)
    }

    /// Adds many edges at once, given as parallel arrays, as a heap scan produces them.
    ///
    /// When the builder holds no edge yet, the holder, target and role arrays become its
    /// storage as they are (no copy).
    ///
    /// - Parameters:
    ///   - newSources: The holders (provisional numbers).
    ///   - newTargets: The held nodes.
    ///   - ownerships: How each holder holds its target.
    ///   - roleNumbers: Each edge's role number from ``intern(_:)-(ReferenceRole)``.
    ///   - origin: Whether these edges were declared or found by reading memory.
    /// Arrays of different lengths are cut to the shortest.
    ///
    /// - Complexity: O(*k*) for *k* edges.
    public mutating func addEdges(
        sources newSources: [CompactGraph.NodeID], targets newTargets: [CompactGraph.NodeID],
        ownerships: [Ownership], roleNumbers: [UInt32], origin: ReferenceOrigin
    ) {
        let count = min(
            newSources.count, newTargets.count, ownerships.count, roleNumbers.count)
        appendEdges(
            sources: Array(newSources.prefix(count)), targets: Array(newTargets.prefix(count)),
            flags: ownerships.prefix(count).map { CompactGraph.flags($0, origin) },
            roles: Array(roleNumbers.prefix(count)), tags: [])
    }

    /// Appends edges given as whole columns, flags as the graph stores them
    /// (``CompactGraph/flags(_:_:)``); the columns are taken as they are into a builder with
    /// no edge yet. `tags` is empty, or one per edge.
    ///
    /// - Complexity: O(1) into an empty builder, O(*k*) for *k* edges otherwise.
    package mutating func appendEdges(
        sources newSources: [UInt32], targets newTargets: [UInt32], flags: [UInt8],
        roles newRoles: [UInt32], tags: [UInt32]
    ) {
        let count = newSources.count
        edgeTags.appendOptional(tags, count: count, after: targets.count)
        sources.adoptOrAppend(newSources, count: count)
        targets.adoptOrAppend(newTargets, count: count)
        edgeFlags.adoptOrAppend(flags, count: count)
        edgeRoles.adoptOrAppend(newRoles, count: count)
    }

    /// Adds a copy of node `position` of `other`, whose strings this builder shares.
    package mutating func copyNode(_ position: Int, from other: CompactGraph.Builder) {
        addNode(
            kind: other.kinds[position], typeNameNumber: other.typeNames[position],
            labelNumber: other.label(at: position), address: other.addresses[position],
            key: other.key(at: position),
            size: other.sizes.isEmpty ? 0 : Int(other.sizes[position]))
    }
}

extension Array {
    /// Appends the first `count` elements of `new`; when `self` is empty and `new` has exactly
    /// `count` elements, takes `new` as it is instead (no copy: a column of a million handed
    /// over whole).
    package mutating func adoptOrAppend(_ new: [Element], count: Int) {
        if isEmpty, new.count == count {
            self = new
        } else {
            append(contentsOf: new.prefix(count))
        }
    }
}

extension Array where Element: FixedWidthInteger {
    /// Zeros appended to a column that is not empty, up to `rows` values.
    mutating func padded(to rows: Int) {
        guard !isEmpty, count < rows else { return }
        append(contentsOf: Array(repeating: 0, count: rows - count))
    }

    /// Sets row `row` (the next row to add, or one already added) of a column that stays
    /// empty until some row has a value other than 0, then has one value per row (labels,
    /// keys, sizes): the rows before get zeros first. Does nothing for a 0 while it is empty.
    mutating func setOptional(_ value: Element, at row: Int) {
        if row < count {
            self[row] = value
            return
        }
        guard value != 0 || !isEmpty else { return }
        // `Array(repeating:count:)`, not `repeatElement`: appending a `Repeated` runs the
        // standard library's generic append unspecialised in a debug build, about 150 ns per
        // element.
        if count < row { append(contentsOf: Array(repeating: 0, count: row - count)) }
        append(value)
    }

    /// Appends `count` values to a column that stays empty until some row has one (sizes, edge
    /// tags): the first `count` of `new`, or zeros when `new` is empty; the `rows` rows before
    /// get zeros first. Does nothing while both are empty.
    mutating func appendOptional(_ new: [Element], count: Int, after rows: Int) {
        guard !new.isEmpty || !isEmpty else { return }
        if self.count < rows { append(contentsOf: Array(repeating: 0, count: rows - self.count)) }
        if new.isEmpty {
            append(contentsOf: Array(repeating: 0, count: count))
        } else {
            adoptOrAppend(new, count: count)
        }
    }
}
