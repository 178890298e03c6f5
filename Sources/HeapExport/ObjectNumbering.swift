/// Numbers objects by address and type, the first time each is seen, so that an object keeps
/// its number across the snapshots of one process: what DevTools' Comparison and its "objects
/// allocated between snapshots" filter match objects by.
///
/// Objects first seen later get larger numbers, so new objects have larger ids, as V8's do. An
/// address freed and reused by a new object of another type gets a new number; reused by an
/// object of the same type, it keeps the old one (the new object then looks like a survivor:
/// the census keeps no allocation sequence number to tell them apart).
///
/// ```swift
/// var numbering = ObjectNumbering()
/// try HeapCensus.snapshot().write(toFile: "before.heapsnapshot", numbering: &numbering)
/// try HeapCensus.snapshot().write(toFile: "after.heapsnapshot", numbering: &numbering)
/// ```
public struct ObjectNumbering: Sendable {
    private struct Key: Hashable {
        var address: UInt
        var type: Int
    }
    private var numbers: [Key: UInt64] = [:]
    private var unaddressed: UInt64 = 0

    /// Creates an empty numbering.
    public init() {}

    /// Makes room for `count` numbered objects in all, so that numbering them does not grow
    /// the table as it goes.
    public mutating func reserveCapacity(_ count: Int) { numbers.reserveCapacity(count) }

    /// How many objects have a number.
    public var count: Int { numbers.count + Int(unaddressed) }

    /// The number of the object of type `typeName` at `address`, given the first time it is
    /// asked for (1, 2, …); a new number every time for an object without an address.
    ///
    /// ```swift
    /// let id = V8HeapSnapshot.objectID(numbering.number(forAddress: address, typeName: "App.Session"))
    /// ```
    ///
    /// - Parameters:
    ///   - address: The object's address, or `nil` when it has none (a node of a hand-made
    ///     graph).
    ///   - typeName: Its type name, as the graph has it.
    /// - Complexity: O(1) expected, plus one hash of `typeName`.
    public mutating func number(forAddress address: UInt?, typeName: String) -> UInt64 {
        number(forAddress: address, type: typeName.hashValue)
    }

    /// ``number(forAddress:typeName:)`` with the type name's hash already taken.
    mutating func number(forAddress address: UInt?, type: Int) -> UInt64 {
        guard let address else {
            unaddressed += 1
            return UInt64(count)
        }
        let key = Key(address: address, type: type)
        if let number = numbers[key] { return number }
        let number = UInt64(count + 1)
        numbers[key] = number
        return number
    }
}
