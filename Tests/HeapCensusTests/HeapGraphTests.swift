import Foundation
import HeapCensus
import RetainGraph
import Testing

/// A target the shapes below hold.
final class Leaf: @unchecked Sendable {}

protocol Holding: AnyObject {}
extension Leaf: Holding {}

enum State {
    case idle
    case running(Leaf)
    case paused(Leaf, Int)
}

struct Pair {
    var first: Leaf
    var count: Int
}

/// One object with a reference of every shape the census reads.
final class Shapes: @unchecked Sendable {
    var strong = Leaf()
    weak var weakRef: Leaf?
    unowned var unownedRef: Leaf
    unowned(unsafe) var unsafeRef: Leaf
    var optional: Leaf? = Leaf()
    var pair = Pair(first: Leaf(), count: 1)
    var state = State.running(Leaf())
    var multi = State.paused(Leaf(), 2)
    var anyValue: Any = Leaf()
    var anyStruct: Any = Pair(first: Leaf(), count: 3)
    var existential: any Holding = Leaf()
    var tuple: (Leaf, Int) = (Leaf(), 4)
    var array = [Leaf(), Leaf()]
    var contiguous: ContiguousArray<Leaf> = [Leaf()]
    var dictionary = ["a": Leaf(), "b": Leaf()]
    var set: Set<ObjectIdentifier> = []
    var boxes: [Pair] = [Pair(first: Leaf(), count: 5)]
    var closure: () -> Void = {}

    init(kept: Leaf) {
        unownedRef = kept
        unsafeRef = kept
        weakRef = kept
        let captured = Leaf()
        closure = {
            _ = captured
            _ = kept
        }
    }
}

@Suite(.serialized) struct HeapGraphTests {
    init() { HeapCensus.start() }

    @Test func everyShapeOfReferenceIsReadWithItsKind() throws {
        let kept = Leaf()
        let shapes = Shapes(kept: kept)
        let heap = HeapCensus.snapshot()
        let id = try #require(heap.id(of: shapes))
        let references = heap.references(from: id)
        func targets(_ path: String) -> [HeapReference] {
            references.filter { $0.role == .storedProperty(name: path) }
        }
        #expect(targets("strong").map(\.ownership) == [.strong])
        #expect(targets("weakRef").map(\.ownership) == [.weak])
        #expect(targets("unownedRef").map(\.ownership) == [.unowned])
        #expect(targets("unsafeRef").map(\.ownership) == [.unownedUnsafe])
        #expect(heap[try #require(targets("weakRef").first).to].address == address(of: kept))
        #expect(targets("optional").count == 1)
        #expect(targets("pair.first").count == 1)
        #expect(targets("state.running").count == 1, "enum payload: \(references.map(\.label))")
        #expect(
            targets("multi.paused.0").count == 1, "multi-payload enum: \(references.map(\.label))")
        #expect(targets("anyValue (Any)").count == 1)
        // A struct that fits an existential's buffer is read in place.
        #expect(targets("anyStruct (Any).first").count == 1)
        #expect(targets("existential").count == 1)
        #expect(targets("tuple.0").count == 1)
        #expect(targets("closure").count == 1)
        for storage in ["array", "contiguous", "dictionary", "boxes"] {
            #expect(targets(storage).count == 1, "\(storage) storage")
        }
        // The elements, from the storage objects.
        func elements(of label: String) -> [String] {
            guard let storage = targets(label).first?.to else { return [] }
            return heap.references(from: storage).map(\.label)
        }
        #expect(elements(of: "array") == ["element of an array", "element of an array"])
        #expect(elements(of: "contiguous").count == 1)
        #expect(
            elements(of: "dictionary") == ["value of [String: Leaf]", "value of [String: Leaf]"])
        #expect(elements(of: "boxes") == ["element of [Pair] .first"])
        // The closure's context captures both leaves.
        let context = try #require(targets("closure").first?.to)
        #expect(heap.references(from: context).count == 2)
        #expect(heap[context].typeName.hasPrefix("closure context (captures"))
        withExtendedLifetime((kept, shapes)) {}
    }

    @Test func anObjectIsCountedByTypeUntilItIsFreed() throws {
        var leaves: [Leaf]? = (0..<100).map { _ in Leaf() }
        let before = HeapCensus.snapshot().countsByType().first { $0.typeName.hasSuffix(".Leaf") }
        #expect((before?.count ?? 0) >= 100)
        leaves = nil
        let after = HeapCensus.snapshot().countsByType().first { $0.typeName.hasSuffix(".Leaf") }
        #expect((after?.count ?? 0) <= (before?.count ?? 0) - 100)
        _ = leaves
    }

    @Test func creationTracesAreKeptForChosenTypes() throws {
        let (traced, shapes) = HeapCensus.withCreationTracing(of: [Leaf.self]) {
            let leaf = makeTracedLeaf()
            return (leaf, Shapes(kept: leaf))
        }
        let trace = try #require(HeapCensus.creationTrace(of: traced))
        let names = trace.symbolicated().compactMap(\.function)
        // The trace starts in the code that allocated (the initialiser, then its caller), not
        // in the census's own frames.
        #expect(names.prefix(3).contains { $0.contains("makeTracedLeaf") }, "\(names.prefix(4))")
        #expect(!names.contains { $0.contains("swift_allocObject") || $0.contains("after_object") })
        #expect(HeapCensus.creationTrace(of: shapes) == nil)
    }

    @Test func theCensusDoesNotKeepWhatItSaw() throws {
        weak var gone: Leaf?
        do {
            let leaf = Leaf()
            gone = leaf
            let heap = HeapCensus.snapshot()
            #expect(heap.id(of: leaf) != nil)
        }
        #expect(gone == nil)
    }
}

private func address(of object: AnyObject) -> UInt {
    UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
}

@inline(never)
private func makeTracedLeaf() -> Leaf { Leaf() }

extension HeapGraphTests {
    @Test func countsAgreeWithTheSnapshotByType() throws {
        let leaves = (0..<50).map { _ in Leaf() }
        let counts = HeapCensus.counts().countsByType().first { $0.typeName.hasSuffix(".Leaf") }
        #expect((counts?.count ?? 0) >= 50)
        let addresses = HeapCensus.counts().addresses(ofType: "HeapCensusTests.Leaf")
        #expect(leaves.allSatisfy { addresses.contains(address(of: $0)) })
    }
}
