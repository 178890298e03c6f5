// The allocation loops the census's cost is counted on (Scripts/census-cost.sh), shared by an
// executable that links HeapCensus (CensusCost) and one that does not (CensusCostBare), so the
// two run the same machine code and differ only in which malloc and free they call.
//
// This module must never depend on HeapCensus: linking it would interpose malloc in
// CensusCostBare too.

/// A small class instance: a header and two stored properties (32 bytes).
public final class Payload {
    /// A value the loops write, so the object is not empty.
    public var value: Int
    /// A reference, so the object has a strong slot.
    public var next: Payload?

    /// Creates a payload holding `value`.
    public init(_ value: Int) { self.value = value }
}

/// Where the loops store what they allocate: a global, so the compiler cannot keep the
/// objects on the stack, and each store frees the previous value.
nonisolated(unsafe) public var objectSink: Payload?
/// The array the second loop builds and drops (its storage and four payloads).
nonisolated(unsafe) public var arraySink: [Payload] = []

/// One loop to count.
public enum AllocationLoop: String, CaseIterable, Sendable {
    /// Allocate a `Payload`, store it (freeing the previous one): one malloc, one free.
    case object
    /// Build `[Payload]` of four and store it (freeing the previous array and its four
    /// elements): five mallocs (four objects and the array's storage), five frees.
    case array

    /// Runs the loop `count` times, then frees what the last iteration stored.
    @inline(never)
    public func run(count: Int) {
        switch self {
        case .object:
            for index in 0..<count { objectSink = Payload(index) }
            objectSink = nil
        case .array:
            for index in 0..<count {
                arraySink = [
                    Payload(index), Payload(index &+ 1), Payload(index &+ 2), Payload(index &+ 3),
                ]
            }
            arraySink = []
        }
    }
}
