import Foundation
import LeakTracking
import RetainGraphTesting
import Testing

@Suite("The .detectsLeaks trait")
struct DetectsLeaksTraitTests {
    @Test(
        "Clean code passes: the timer is invalidated and the screen dies",
        .detectsLeaks(graph: testingGraph))
    func cleanCodePasses() throws {
        let screen = TickingScreen()
        try screen.start()
        screen.stop()
        LeakWatcher.current.expectDeallocation(of: screen, reason: "screen stopped")
    }

    @Test("The trait records the planted S1 leak as an issue whose comment is the text report")
    func catchesPlantedLeak() async throws {
        let planted = PlantedTimers()
        let trait = LeakDetectionTrait.detectsLeaks(grace: .milliseconds(20), graph: testingGraph)
        let test = try #require(Test.current)
        try await withKnownIssue("a planted S1 leak") {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                let screen = TickingScreen()
                try screen.start()
                planted.keep(screen.timer)
                LeakWatcher.current.expectDeallocation(of: screen, reason: "screen closed")
            }
        } matching: { issue in
            issue.comments.contains { comment in
                comment.rawValue.hasPrefix("LEAK: RetainGraphTestingTests.TickingScreen")
                    && comment.rawValue.contains("↓ strong · target")
                    && comment.rawValue.contains("Hint: ")
            }
        }
        planted.invalidateAll()
    }

    @Test("A known leak is allowed with its reason and does not fail the test")
    func knownLeakIsAllowed() async throws {
        let planted = PlantedTimers()
        let leaks = try await withLeakDetection(
            LeakDetectionOptions(
                grace: .milliseconds(20), graph: testingGraph,
                knownLeaks: [.type(TickingScreen.self, reason: "planted on purpose")])
        ) {
            let screen = TickingScreen()
            try screen.start()
            planted.keep(screen.timer)
            LeakWatcher.current.expectDeallocation(of: screen, reason: "screen closed")
        }
        #expect(leaks.isEmpty)
        planted.invalidateAll()
    }

    @Test("A failing test's watches are dropped: the next scope starts empty")
    func watchesAreClearedWhenTheBodyThrows() async throws {
        struct Planted: Error {}
        let planted = PlantedTimers()
        let seen = WatcherBox()
        await #expect(throws: Planted.self) {
            _ = try await withLeakDetection(LeakDetectionOptions(graph: testingGraph)) {
                let screen = TickingScreen()
                try screen.start()
                planted.keep(screen.timer)
                LeakWatcher.current.expectDeallocation(of: screen, reason: "screen closed")
                seen.watcher = LeakWatcher.current
                throw Planted()
            }
        }
        #expect(seen.watcher?.watchCount == 0)
        #expect(seen.watcher !== LeakWatcher.shared)
        #expect(LeakWatcher.current === LeakWatcher.shared)
        planted.invalidateAll()
    }
}

@Suite("A suite under .detectsLeaks", .detectsLeaks(graph: testingGraph))
struct DetectsLeaksSuiteTests {
    @Test("Each test of the suite gets a watcher of its own")
    func ownWatcher() {
        #expect(LeakWatcher.current !== LeakWatcher.shared)
        #expect(LeakWatcher.current.watchCount == 0)
        let object = TickingScreen()
        LeakWatcher.current.expectDeallocation(of: object, reason: "test ended")
    }
}

final class WatcherBox: @unchecked Sendable {
    var watcher: LeakWatcher?
}
