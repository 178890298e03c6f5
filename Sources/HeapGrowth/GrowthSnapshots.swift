import HeapCensus

/// The census snapshots that start and end a growth measurement: before the first count, and
/// at the end of the second measured round.
///
/// The test helpers write both as `.heapsnapshot` files numbered with one
/// `ObjectNumbering` when a growth check fails, so Chrome DevTools' Comparison view shows the
/// grown type with +N between them (every repetition of the discovery and measured rounds).
package struct GrowthSnapshots: Sendable {
    /// The heap before the first count (after the warm-up).
    package let start: HeapSnapshot
    /// The heap at the end of the second measured round.
    package let end: HeapSnapshot
}
