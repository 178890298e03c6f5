import Foundation
import HeapCensus
import Testing

/// Objects made inside a `Task`, kept by the task's result (a leak the task holds).
nonisolated(unsafe) var madeByTasks: [Owner] = []

/// Owners of a `Foundation.Timer` whose block keeps them (never freed on Linux).
nonisolated(unsafe) var timerOwners: [TimerOwner] = []

/// Where three kinds of leaked objects were made, read back as a user would: public API only.
@Suite(.serialized) struct CreationSiteTests {
    init() { HeapCensus.start() }

    /// The site's user frame is in this file, at `line`.
    private func expectSite(_ site: CreationSite?, line: Int, _ what: String) {
        guard let site else {
            Issue.record("\(what): no creation site")
            return
        }
        let frame = site.userFrame()
        let frames = site.frames().map(\.description)
        #expect(frame?.file?.hasSuffix("CreationSiteTests.swift") == true, "\(what): \(frames)")
        #expect(frame?.line == line, "\(what): \(frames)")
        #expect(site.description == "CreationSiteTests.swift:\(line)", "\(what): \(frames)")
    }

    @Test func anObjectMadeInsideATaskNamesTheLineThatMadeIt() async throws {
        let line = #line + 2
        let owner = await Task.detached { () -> Owner in
            let made = Owner()
            return made
        }.value
        madeByTasks.append(owner)
        expectSite(HeapCensus.creationSite(of: owner), line: line, "object made in a Task")
    }

    @Test func theOwnerOfAFoundationTimerNamesTheLineThatMadeIt() throws {
        let line = #line + 1
        let owner = TimerOwner()
        owner.start()
        timerOwners.append(owner)
        defer { owner.timer?.invalidate() }
        expectSite(HeapCensus.creationSite(of: owner), line: line, "Timer owner")
    }

    @Test func anObjectHeldByAGlobalNamesTheLineThatMadeIt() throws {
        let line = #line + 1
        ownerCache.append(Owner())
        let owner = try #require(ownerCache.last)
        expectSite(HeapCensus.creationSite(of: owner), line: line, "object held by a global")
        // The census's snapshot answers for its objects too.
        let heap = HeapCensus.snapshot()
        let id = try #require(heap.id(of: owner))
        #expect(heap.creationSite(of: id) == HeapCensus.creationSite(of: owner))
    }

    @Test func aClosureContextNamesTheFunctionThatMadeTheClosure() throws {
        let line = #line + 3
        let owner = Owner()
        let other = Owner()  // two captures: the context is an object of its own
        CallbackRegistry.shared.callbacks["site"] = {
            owner.tick()
            other.tick()
        }
        defer { CallbackRegistry.shared.callbacks["site"] = nil }
        let heap = HeapCensus.snapshot()
        let ownerID = try #require(heap.id(of: owner))
        let otherID = try #require(heap.id(of: other))
        // The context the closure literal made is the one object that captures both owners
        // (the retention path may pass through other contexts: a thunk's, another test's).
        let capturingOther = Set(heap.references(to: otherID).map(\.from))
        let contexts = heap.references(to: ownerID).map(\.from).filter {
            capturingOther.contains($0) && heap[$0].typeName.hasPrefix("closure context")
        }
        let context = try #require(
            contexts.first,
            "\(heap.retentionPath(to: ownerID)?.description ?? "no path")")
        let site = try #require(heap.creationSite(of: context))
        let frames = site.frames()
        #expect(
            frames.contains {
                $0.file?.hasSuffix("CreationSiteTests.swift") == true && $0.line == line
            },
            "\(frames.map(\.description)); \(heap[context].typeName)")
    }

    @Test func anAddressTheCensusDoesNotKnowHasNoSite() {
        var local = 0
        let address = withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
        #expect(HeapCensus.creationSite(ofObjectAt: address) == nil)
        #expect(HeapCensus.creationSite(ofObjectAt: 0) == nil)
        #expect(HeapCensus.creationSiteCount > 0)
    }
}
