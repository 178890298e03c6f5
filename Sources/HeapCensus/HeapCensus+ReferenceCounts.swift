extension HeapCensus {
    /// The reference counts of the live object at `address`, if the census knows one there.
    ///
    /// Read under the census's lock for the object, so the object cannot be freed meanwhile:
    /// safe with any address, and with an object other threads are releasing. The weak and
    /// unowned counts come from the Swift runtime (`swift_weakRetainCount`,
    /// `swift_unownedRetainCount`), less the one each keeps on behalf of the other references.
    ///
    /// ```swift
    /// let heap = HeapCensus.snapshot()
    /// let counts = HeapCensus.referenceCounts(ofObjectAt: heap[id].address)
    /// // counts?.weak == 0: no weak reference anywhere can revive it
    /// ```
    ///
    /// - Parameter address: An object's address (from a snapshot).
    /// - Returns: The counts, or nil when the census knows no live object there (it was freed,
    ///   began deinitialising, or was allocated before the census started).
    /// - Complexity: O(1): one lookup in the census's table.
    public static func referenceCounts(ofObjectAt address: UInt) -> ReferenceCounts? {
        CensusDoor.counts(ofLiveBlockAt: address).map {
            ReferenceCounts(strong: $0.strong, unowned: $0.unowned, weak: $0.weak)
        }
    }
}
