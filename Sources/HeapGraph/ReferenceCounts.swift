/// How many references of each kind hold a live object, as its reference counts say (a census
/// reads them with `HeapCensus.referenceCounts(ofObjectAt:)`).
///
/// The counts include references the census cannot see (a thread's stack, C code, memory
/// allocated before the census started); comparing them with the references a
/// ``HeapSnapshot`` found tells whether anything outside the snapshot holds the object. A weak
/// or unowned reference can make a strong one again while the object lives (a weak
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
