/// Numbers objects by address, the first time each is seen, so that an object keeps its number
/// across the snapshots of one process: what DevTools' Comparison and its "objects allocated
/// between snapshots" filter match objects by.
///
/// Objects first seen later get larger numbers, so new objects have larger ids, as V8's do. An
/// address freed and reused by a new object keeps the old number: the new object then looks
/// like a survivor. A census allocation sequence number, when there is one, is the better id.
///
/// ```swift
/// var numbering = ObjectNumbering()
/// try HeapCensus.snapshot().writeHeapSnapshot(toFile: "before.heapsnapshot", numbering: &numbering)
/// try HeapCensus.snapshot().writeHeapSnapshot(toFile: "after.heapsnapshot", numbering: &numbering)
/// ```
public struct ObjectNumbering: Sendable {
    private var numbers: [UInt: UInt64] = [:]

    /// Creates an empty numbering.
    public init() {}

    /// How many addresses have a number.
    public var count: Int { numbers.count }

    /// The number of the object at `address`, given the first time it is asked for (1, 2, …).
    ///
    /// - Complexity: O(1) expected.
    public mutating func number(forAddress address: UInt) -> UInt64 {
        if let number = numbers[address] { return number }
        let number = UInt64(numbers.count + 1)
        numbers[address] = number
        return number
    }
}
