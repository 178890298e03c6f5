/// How many references of each kind hold a live object, as its reference counts say.
///
/// The counts include references the census cannot see (a thread's stack, C code, memory
/// allocated before the census started); comparing them with the references a
/// ``/HeapGraph/HeapSnapshot`` found tells whether anything outside the snapshot holds the object. A
/// weak or unowned reference can make a strong one again while the object lives (a weak
/// variable read, an `unowned` property used), so an object held only through a cycle is
/// beyond reach only if its weak and unowned references are accounted for too.
public struct ReferenceCounts: Hashable, Sendable {
    /// Strong references: the strong retain count (`swift_retainCount`), or a C block's
    /// reference count.
    public let strong: Int
    /// `unowned` references (safe ones: `unowned(unsafe)` is not counted by anything).
    public let unowned: Int
    /// `weak` references.
    public let weak: Int

    /// Creates counts.
    ///
    /// - Parameters:
    ///   - strong: The strong retain count.
    ///   - unowned: The number of unowned references.
    ///   - weak: The number of weak references.
    public init(strong: Int, unowned: Int, weak: Int) {
        self.strong = strong
        self.unowned = unowned
        self.weak = weak
    }
}

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
