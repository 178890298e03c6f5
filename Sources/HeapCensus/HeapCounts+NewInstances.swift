import RuntimeLayouts

extension HeapCounts {
    /// How many of this count's objects of each type named in `typeNames` were not among
    /// `earlier`'s objects of that type: the instances made since, which other threads freeing
    /// older ones can hide from a comparison of counts.
    ///
    /// An object at an address `earlier` also counted, with the same type name, is an old one
    /// (an address freed and reused for another object of the same type reads as old).
    ///
    /// ```swift
    /// let before = HeapCensus.counts()
    /// runTheWork()
    /// let made = HeapCensus.counts().newInstanceCounts(since: before, ofTypesNamed: ["App.Lease"])
    /// ```
    ///
    /// - Parameters:
    ///   - earlier: A count taken before this one.
    ///   - typeNames: The types to count, by name.
    /// - Returns: The new instances of each of `typeNames` that has any.
    /// - Complexity: O(*n* + *m*) expected for the *n* and *m* objects of those types in the
    ///   two counts: one pass over each, and one table of `earlier`'s objects of those types.
    ///   (A set of addresses per type, built for both counts, cost 0.25 s at a million objects
    ///   in the growth check; this table, 16 bytes per slot, a few tens of milliseconds.)
    public func newInstanceCounts(since earlier: HeapCounts, ofTypesNamed typeNames: Set<String>)
        -> [String: Int]
    {
        let names = Array(typeNames)
        let slots = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, Int32($0)) })
        // Each count's type indices mapped to a slot of `names` (-1: not asked for).
        func slotsOfTypes(_ counts: HeapCounts) -> [Int32] {
            counts.typeNames.map { slots[$0] ?? -1 }
        }
        let earlierSlots = slotsOfTypes(earlier)
        var earlierAddresses: [UInt] = []
        var earlierSlotOfEach: [Int32] = []
        for index in earlier.types.indices {
            let slot = earlierSlots[Int(earlier.types[index])]
            if slot >= 0 {
                earlierAddresses.append(earlier.addresses[index])
                earlierSlotOfEach.append(slot)
            }
        }
        let earlierIndex = AddressIndex(earlierAddresses)
        let laterSlots = slotsOfTypes(self)
        var new = [Int](repeating: 0, count: names.count)
        for index in types.indices {
            let slot = laterSlots[Int(types[index])]
            guard slot >= 0 else { continue }
            let found = earlierIndex.rawIndex(of: addresses[index])
            if found < 0 || earlierSlotOfEach[Int(found)] != slot { new[Int(slot)] += 1 }
        }
        var counts: [String: Int] = [:]
        for (slot, count) in new.enumerated() where count > 0 { counts[names[slot]] = count }
        return counts
    }
}
