import HeapCensus
import Testing

/// A class of the same instance size as ``Leaf`` (a header, no stored property): in malloc mode
/// the census traces by size before the type is known, so this one is traced too, and its trace
/// must be dropped.
final class LeafTwin: @unchecked Sendable {}

/// A class no other test traces.
final class TracedOnlyHere: @unchecked Sendable {
    var payload = (0, 0, 0)
}

// Creation tracing is process-wide: these tests run beside growth measurements (which trace
// their candidates) and must not depend on what those trace, nor stop it.
extension HeapGraphTests {
    @Test func anObjectOfAnotherTypeOfTheSameSizeHasNoCreationTrace() throws {
        let (twin, leaf) = HeapCensus.withCreationTracing(of: [Leaf.self]) {
            (makeTwin(), makeLeafForTracing())
        }
        let trace = try #require(HeapCensus.creationTrace(of: leaf))
        let names = trace.symbolicated().compactMap(\.function)
        #expect(
            names.prefix(3).contains { $0.contains("makeLeafForTracing") }, "\(names.prefix(4))")
        #expect(HeapCensus.creationTrace(of: twin) == nil)
    }

    @Test func aTraceOutlivesTheEndOfTracing() throws {
        // Ending the tracing resolves the traces taken before the type was known.
        let (leaf, twin) = HeapCensus.withCreationTracing(of: [Leaf.self]) {
            (makeLeafForTracing(), makeTwin())
        }
        let trace = try #require(HeapCensus.creationTrace(of: leaf))
        let names = trace.symbolicated().compactMap(\.function)
        #expect(
            names.prefix(3).contains { $0.contains("makeLeafForTracing") }, "\(names.prefix(4))")
        #expect(HeapCensus.creationTrace(of: twin) == nil)
    }

    @Test func oneCallersEndOfTracingDoesNotStopAnothers() throws {
        let traced = HeapCensus.withCreationTracing(of: [TracedOnlyHere.self]) {
            // Another caller traces the same type and stops, and the standing choice is
            // cleared: this caller's tracing goes on.
            HeapCensus.withCreationTracing(of: [TracedOnlyHere.self, Leaf.self]) {
                _ = makeTracedOnlyHere()
            }
            HeapCensus.traceCreation(of: [])
            return makeTracedOnlyHere()
        }
        let trace = try #require(HeapCensus.creationTrace(of: traced))
        let names = trace.symbolicated().compactMap(\.function)
        #expect(
            names.prefix(3).contains { $0.contains("makeTracedOnlyHere") }, "\(names.prefix(4))")
        #expect(HeapCensus.creationTrace(of: makeTracedOnlyHere()) == nil)
    }

    @Test func theStandingChoiceIsTracedBesideScopedTracing() async throws {
        HeapCensus.traceCreation(of: [TracedOnlyHere.self])
        defer { HeapCensus.traceCreation(of: []) }
        let (mine, leaf) = await HeapCensus.withCreationTracing(of: [Leaf.self]) {
            await Task.yield()
            return (makeTracedOnlyHere(), makeLeafForTracing())
        }
        #expect(HeapCensus.creationTrace(of: mine) != nil)
        #expect(HeapCensus.creationTrace(of: leaf) != nil)
        // The scoped request ended; the standing choice goes on.
        #expect(HeapCensus.creationTrace(of: makeTracedOnlyHere()) != nil)
    }
}

@inline(never)
private func makeLeafForTracing() -> Leaf { Leaf() }

@inline(never)
private func makeTwin() -> LeafTwin { LeafTwin() }

@inline(never)
private func makeTracedOnlyHere() -> TracedOnlyHere { TracedOnlyHere() }
