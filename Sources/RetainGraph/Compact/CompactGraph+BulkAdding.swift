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
    ///     kinds: [.object, .object], typeNameNumbers: [type, type], addresses: [0x1000, 0x1040])
    /// // added == 0..<2
    /// ```
    ///
    /// - Parameters:
    ///   - newKinds: What each node stands for.
    ///   - typeNameNumbers: Each node's type name, as numbered by ``intern(_:)``.
    ///   - newAddresses: Each node's address, `0` for none.
    /// - Returns: The provisional numbers of the new nodes. Arrays of different lengths are cut
    ///   to the shortest.
    /// - Complexity: O(1) into an empty builder, O(*k*) for *k* nodes otherwise.
    @discardableResult
    public mutating func addNodes(
        kinds newKinds: [CompactGraph.NodeKind], typeNameNumbers: [UInt32],
        addresses newAddresses: [UInt]
    ) -> Range<CompactGraph.NodeID> {
        let first = CompactGraph.NodeID(kinds.count)
        let count = min(newKinds.count, typeNameNumbers.count, newAddresses.count)
        kinds.adoptOrAppend(newKinds, count: count)
        typeNames.adoptOrAppend(typeNameNumbers, count: count)
        addresses.adoptOrAppend(newAddresses, count: count)
        labels.append(contentsOf: repeatElement(0, count: count))
        keys.append(contentsOf: repeatElement(0, count: count))
        return first..<first + CompactGraph.NodeID(count)
    }

    /// Adds many edges at once, given as parallel arrays, marked as found by reading memory.
    ///
    /// Use it for the references a heap census read: they are discovered, and with
    /// `foundInHeap` reports say "found in the heap". When the builder holds no edge yet, the
    /// holder, target and label arrays become its storage as they are (no copy).
    ///
    /// - Parameters:
    ///   - newSources: The holders (provisional numbers).
    ///   - newTargets: The held nodes.
    ///   - kinds: How strongly each holder holds its target.
    ///   - labelNumbers: Each edge's label number from ``intern(_:)``, `0` for none.
    ///   - foundInHeap: Whether a heap census found these edges.
    /// Arrays of different lengths are cut to the shortest.
    ///
    /// - Complexity: O(*k*) for *k* edges (one pass to mark them).
    public mutating func addDiscoveredEdges(
        sources newSources: [CompactGraph.NodeID], targets newTargets: [CompactGraph.NodeID],
        kinds: [CompactGraph.EdgeKind], labelNumbers: [UInt32], foundInHeap: Bool
    ) {
        let count = min(newSources.count, newTargets.count, kinds.count, labelNumbers.count)
        let marks: UInt8 = 0x80 | (foundInHeap ? 0x40 : 0)
        if !edgeTags.isEmpty { edgeTags.append(contentsOf: repeatElement(0, count: count)) }
        sources.adoptOrAppend(newSources, count: count)
        targets.adoptOrAppend(newTargets, count: count)
        edgeLabels.adoptOrAppend(labelNumbers, count: count)
        let first = edgeFlags.count
        edgeFlags.append(contentsOf: repeatElement(marks, count: count))
        kinds.withUnsafeBufferPointer { kinds in
            edgeFlags.withUnsafeMutableBufferPointer { flags in
                for index in 0..<count { flags[first + index] |= kinds[index].rawValue }
            }
        }
    }
}

extension Array {
    /// Appends the first `count` elements of `new`; when `self` is empty and `new` has exactly
    /// `count` elements, takes `new` as it is instead (no copy: a column of a million handed
    /// over whole).
    mutating func adoptOrAppend(_ new: [Element], count: Int) {
        if isEmpty, new.count == count {
            self = new
        } else {
            append(contentsOf: new.prefix(count))
        }
    }
}
