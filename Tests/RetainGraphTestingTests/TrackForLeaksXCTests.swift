import Foundation
import LeakTracking
import RetainGraphTesting
import XCTest

/// swift-corelibs-xctest has no `XCTExpectFailure`, so the planted leak's failure is caught by
/// overriding `recordFailure(withDescription:inFile:atLine:expected:)` for descriptions that
/// are leak reports, and checked in `tearDown()` (which runs after the teardown blocks).
final class TrackForLeaksXCTests: XCTestCase {
    private var expectsPlantedLeak = false
    private var caughtLeaks: [String] = []
    private var caughtLines: [Int] = []
    private var plantedLine = 0
    private let planted = PlantedTimers()

    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
        expected: Bool
    ) {
        if expectsPlantedLeak, description.contains("LEAK: RetainGraphTestingTests.TickingScreen") {
            caughtLeaks.append(description)
            if filePath.hasSuffix("TrackForLeaksXCTests.swift") { caughtLines.append(lineNumber) }
            return
        }
        super.recordFailure(
            withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }

    override func tearDown() {
        if expectsPlantedLeak {
            XCTAssertEqual(caughtLeaks.count, 1, "the teardown check reports the planted leak once")
            XCTAssertTrue(
                caughtLeaks.first?.contains("Hint: the timer holds its target strongly") ?? false)
            XCTAssertEqual(caughtLines, [plantedLine], "reported at the trackForLeaks call")
        }
        planted.invalidateAll()
        super.tearDown()
    }

    func testTeardownCheckFailsOnAPlantedLeak() throws {
        expectsPlantedLeak = true
        let screen = TickingScreen()
        try screen.start()
        planted.keep(screen.timer)
        plantedLine = #line + 1
        trackForLeaks(
            screen, within: .milliseconds(20), reason: "screen closed", graph: testingGraph)
    }

    func testCollectLeaksReturnsThePlantedLeak() throws {
        var screen: TickingScreen? = TickingScreen()
        try screen?.start()
        planted.keep(screen?.timer)
        trackForLeaks(screen!, within: .milliseconds(20), graph: testingGraph)
        screen = nil
        let leaks = collectLeaks()
        XCTAssertEqual(leaks.count, 1)
        XCTAssertEqual(leaks.first?.verdict, .leak)
        XCTAssertEqual(leaks.first?.report?.hint.code, .strongTimerTarget)
        XCTAssertEqual(leaks.first?.report?.path.map(\.role), ["scheduled", "target"])
    }

    func testCleanCodePasses() throws {
        let screen = TickingScreen()
        try screen.start()
        screen.stop()
        trackForLeaks(screen, graph: testingGraph)
    }

    func testAllowedLeakDoesNotFail() throws {
        let screen = TickingScreen()
        try screen.start()
        planted.keep(screen.timer)
        trackForLeaks(screen, within: .milliseconds(20), graph: testingGraph)
        allowLeaks([.type(TickingScreen.self, reason: "planted on purpose")])
    }
}
