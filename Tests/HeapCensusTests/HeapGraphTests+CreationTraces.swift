import HeapCensus
import Testing

/// A class of the same instance size as ``Leaf`` (a header, no stored property): in malloc mode
/// the census traces by size before the type is known, so this one is traced too, and its trace
/// must be dropped.
final class LeafTwin: @unchecked Sendable {}

// In the serialized HeapGraphTests suite: creation tracing is process-wide.
extension HeapGraphTests {
    @Test func anObjectOfAnotherTypeOfTheSameSizeHasNoCreationTrace() throws {
        HeapCensus.traceCreation(of: [Leaf.self])
        defer { HeapCensus.traceCreation(of: []) }
        let twin = makeTwin()
        let leaf = makeLeafForTracing()
        let trace = try #require(HeapCensus.creationTrace(of: leaf))
        let names = trace.symbolicated().compactMap(\.function)
        #expect(
            names.prefix(3).contains { $0.contains("makeLeafForTracing") }, "\(names.prefix(4))")
        #expect(HeapCensus.creationTrace(of: twin) == nil)
    }

    @Test func aTraceOutlivesTheEndOfTracing() throws {
        HeapCensus.traceCreation(of: [Leaf.self])
        let leaf = makeLeafForTracing()
        let twin = makeTwin()
        // Stopping resolves the traces taken before the type was known.
        HeapCensus.traceCreation(of: [])
        let trace = try #require(HeapCensus.creationTrace(of: leaf))
        let names = trace.symbolicated().compactMap(\.function)
        #expect(
            names.prefix(3).contains { $0.contains("makeLeafForTracing") }, "\(names.prefix(4))")
        #expect(HeapCensus.creationTrace(of: twin) == nil)
    }
}

@inline(never)
private func makeLeafForTracing() -> Leaf { Leaf() }

@inline(never)
private func makeTwin() -> LeafTwin { LeafTwin() }
