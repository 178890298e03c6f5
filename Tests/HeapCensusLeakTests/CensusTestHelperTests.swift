import Foundation
import HeapCensus
import LeakTracking
import RetainGraphTesting
import Testing
import XCTest

/// A plain `Foundation.Timer` that keeps its owner, watched with the library's test helpers
/// and the census on: the failure text carries the path the census found.
@Suite(.serialized) struct CensusTraitTests {
    @Test func theTraitFailsWithThePathFromTheTimer() async throws {
        HeapCensus.start()
        let timers = Timers()
        defer { timers.invalidateAll() }
        let trait = LeakDetectionTrait.detectsLeaks(grace: .zero)
        let test = try #require(Test.current)
        try await withKnownIssue("a plain Foundation.Timer keeps its owner") {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                timers.keep(startLeakingTimerOwner(reason: "owner closed"))
            }
        } matching: { issue in
            issue.comments.contains { comment in
                let text = comment.rawValue
                return text.hasPrefix("LEAK: HeapCensusLeakTests.TimerOwner")
                    && text.contains("GC root: a Foundation.Timer scheduled on a run loop")
                    && text.contains("↓ strong · ._fire (a closure capturing TimerOwner)")
                    && text.contains("Hint: ")
            }
        }
    }
}

/// Timers a test invalidates when it ends.
final class Timers: @unchecked Sendable {
    private let lock = NSLock()
    private var timers: [Timer] = []
    func keep(_ timer: Timer?) { lock.withLock { timers += timer.map { [$0] } ?? [] } }
    func invalidateAll() {
        lock.withLock {
            for timer in timers { timer.invalidate() }
        }
    }
}

/// Starts a `TimerOwner` whose timer captures it strongly and watches it; no local variable of
/// the caller keeps the owner.
@inline(never)
func startLeakingTimerOwner(reason: String) -> Timer? {
    let owner = TimerOwner()
    owner.start(weakly: false)
    LeakWatcher.current.expectDeallocation(of: owner, reason: reason)
    return owner.timer
}

/// swift-corelibs-xctest has no `XCTExpectFailure`: the expected failure is caught by
/// overriding `recordFailure` and checked in `tearDown()`, as RetainGraphTestingTests does.
final class CensusTrackForLeaksXCTests: XCTestCase {
    private var caught: [String] = []
    private var timer: Timer?

    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
        expected: Bool
    ) {
        if description.contains("LEAK: HeapCensusLeakTests.TimerOwner") {
            caught.append(description)
            return
        }
        super.recordFailure(
            withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }

    override func tearDown() {
        XCTAssertEqual(caught.count, 1, "the teardown check reports the leak once")
        XCTAssertTrue(
            caught.first?.contains("GC root: a Foundation.Timer scheduled on a run loop") ?? false,
            caught.first ?? "no failure")
        XCTAssertTrue(
            caught.first?.contains("↓ strong · ._fire (a closure capturing TimerOwner)") ?? false,
            caught.first ?? "no failure")
        timer?.invalidate()
        super.tearDown()
    }

    func testTheHelperFailsWithThePathFromTheTimer() {
        // Nothing to start: a test process's census records from launch.
        timer = trackLeakingTimerOwner()
    }

    @inline(never)
    private func trackLeakingTimerOwner() -> Timer? {
        let owner = TimerOwner()
        owner.start(weakly: false)
        trackForLeaks(owner, within: .zero, reason: "owner closed")
        return owner.timer
    }
}
