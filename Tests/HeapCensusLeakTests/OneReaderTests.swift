import HeapCensus
import ReferenceReflection
import RetainGraph
import Synchronization
import Testing

/// What the reflection walk and the heap census read from the same object, the same way: one
/// layout compiler for both, so each reference has one ownership and one role whichever reader
/// found it.
@Suite(.serialized) struct OneReaderTests {
    init() { HeapCensus.start() }

    /// The references reachable from `holder`, as the reflection walk reads them.
    ///
    /// The walk's default budget (250 ms from its start, compiling the root's layout included)
    /// is for a program's own use; here, with other suites taking census snapshots on both
    /// cores, it was spent before the root was read, and the walk (rightly) returned nothing
    /// but a `limitReached` diagnostic. These tests compare what the readers read, so the walk
    /// gets all the time it needs, and a walk cut short fails as such.
    private func walked(from holder: AnyObject) -> WalkResult {
        let walk = ReferenceWalker(graph: nil, limits: WalkLimits(maxDuration: .seconds(600)))
            .walk(from: [holder])
        #expect(
            !walk.diagnostics.contains { $0.kind == .limitReached }, "\(walk.diagnostics)")
        return walk
    }

    /// The references `holder` holds, as the census reads them.
    private func census(from holder: AnyObject) throws -> [HeapReference] {
        let heap = HeapCensus.snapshot()
        let id = try #require(heap.id(of: holder), "the census does not know the holder")
        return heap.references(from: id)
    }

    @Test func aMutexOfOwnersIsReadThroughItsValueByBoth() throws {
        let holder = MutexHolder()
        holder.keep(ReaderOwner())
        let walk = walked(from: holder)
        let root = try #require(walk.rootIDs.first)
        let reflected = walk.references(from: root).map {
            [$0.ownership.rawValue, $0.role.description]
        }
        let read = try census(from: holder).map { [$0.ownership.rawValue, $0.role.description] }
        #expect(reflected == [["strong", ".owners.value"]])
        #expect(read == reflected)
        withExtendedLifetime(holder) {}
    }

    @Test func aNoncopyableFieldIsReadWithItsTypeByBoth() throws {
        let owner = ReaderOwner()
        let holder = TokenHolder(Token(owner: owner))
        let walk = walked(from: holder)
        let root = try #require(walk.rootIDs.first)
        let reflected = walk.references(from: root).map {
            [$0.ownership.rawValue, $0.role.description]
        }
        let read = try census(from: holder).map { [$0.ownership.rawValue, $0.role.description] }
        #expect(reflected == [["strong", ".token.owner"]])
        #expect(read == reflected)
        withExtendedLifetime((holder, owner)) {}
    }

    @Test func aClosureCaptureIsReadWithItsNameByBoth() throws {
        let first = ReaderOwner()
        let second = ReaderOwner()
        let holder = HandlerHolder()
        holder.capture(first, second)
        let walk = walked(from: holder)
        let root = try #require(walk.rootIDs.first)
        let toContext = try #require(walk.references(from: root).first)
        let heap = HeapCensus.snapshot()
        let holderID = try #require(heap.id(of: holder))
        let censusToContext = try #require(heap.references(from: holderID).first)
        // Holder ⇒ .handler ⇒ the closure's context, named after what it captures.
        #expect(toContext.role == .storedProperty(name: "handler"))
        #expect(censusToContext.role == toContext.role)
        #expect(censusToContext.ownership == toContext.ownership)
        let contextName = walk.node(toContext.to)?.typeName
        #expect(contextName == "closure context (captures ReaderOwner, ReaderOwner)")
        #expect(heap[censusToContext.to].typeName == contextName)
        // The context ⇒ each capture.
        let reflected = walk.references(from: toContext.to).map {
            [$0.ownership.rawValue, $0.role.description]
        }
        let read = heap.references(from: censusToContext.to).map {
            [$0.ownership.rawValue, $0.role.description]
        }
        #expect(
            reflected == [["strong", "captures ReaderOwner"], ["strong", "captures ReaderOwner"]])
        #expect(read == reflected)

        // A closure whose only capture is its context: one reference, a capture, for both.
        holder.capture(first)
        let single = try #require(walked(from: holder).references.first)
        let censusSingle = try #require(census(from: holder).first)
        #expect(single.role == .closureCapture(property: "handler", captured: "ReaderOwner"))
        #expect(censusSingle.role == single.role)
        withExtendedLifetime((holder, first, second)) {}
    }
}

final class ReaderOwner: @unchecked Sendable {}

final class MutexHolder: Sendable {
    let owners = Mutex<[ReaderOwner]>([])
    func keep(_ owner: ReaderOwner) { owners.withLock { $0.append(owner) } }
}

struct Token: ~Copyable {
    let owner: ReaderOwner
}

final class TokenHolder {
    let token: Token
    init(_ token: consuming Token) { self.token = token }
}

final class HandlerHolder {
    var handler: (() -> Void)?
    func capture(_ first: ReaderOwner, _ second: ReaderOwner) {
        handler = { _ = (first, second) }
    }
    func capture(_ only: ReaderOwner) { handler = { _ = only } }
}
