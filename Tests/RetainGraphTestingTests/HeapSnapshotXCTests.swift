import Foundation
import LeakTracking
import RetainGraphTesting
import XCTest

/// What XCTest's helpers leave for Chrome DevTools when they fail (XCTest on Linux has no
/// attachments): a `.heapsnapshot` file, named in the failure. The planted failures are caught
/// by overriding `recordFailure(withDescription:inFile:atLine:expected:)`, as in
/// `TrackForLeaksXCTests`; the census records in this test process.
final class HeapSnapshotXCTests: XCTestCase {
    private var expectedFailure: String?
    private var caught: [String] = []
    private let planted = PlantedTimers()

    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
        expected: Bool
    ) {
        if let expectedFailure, description.contains(expectedFailure) {
            caught.append(description)
            return
        }
        super.recordFailure(
            withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }

    override func tearDown() {
        planted.invalidateAll()
        super.tearDown()
    }

    /// The file a failure names, read back and removed.
    private func heapSnapshot(named prefix: String, in failure: String) throws -> V8File {
        let marker = "Heap snapshot (Chrome DevTools, Memory panel → Load): "
        let line = try XCTUnwrap(
            failure.split(separator: "\n").first { $0.hasPrefix(marker) && $0.contains(prefix) },
            failure)
        let url = URL(fileURLWithPath: String(line.dropFirst(marker.count)))
        defer { try? FileManager.default.removeItem(at: url) }
        return try V8File(url)
    }

    func testAFailingLeakCheckNamesAHeapSnapshotWithTheLeakedType() throws {
        expectedFailure = "LEAK: RetainGraphTestingTests.TickingScreen"
        let screen = TickingScreen()
        try screen.start()
        planted.keep(screen.timer)
        trackForLeaks(
            screen, within: .milliseconds(20), reason: "screen closed", graph: testingGraph)
        assertNoLeaks()
        XCTAssertEqual(caught.count, 1)
        let failure = try XCTUnwrap(caught.first)
        let heap = try heapSnapshot(named: "LEAK-TickingScreen-", in: failure)
        XCTAssertFalse(heap.ids(named: "RetainGraphTestingTests.TickingScreen").isEmpty)
    }

    func testAFailingGrowthCheckNamesTwoHeapSnapshotsNumberedAlike() async throws {
        expectedFailure = "HEAP GROWTH: "
        defer { xcTestGrowthLog.removeAll() }
        try await assertHeapDoesNotGrow(repeating: 10) {
            xcTestGrowthLog.append(XCTestGrowthEntry())
        }
        XCTAssertEqual(caught.count, 1)
        let failure = try XCTUnwrap(caught.first)
        let start = try heapSnapshot(named: "-start.heapsnapshot", in: failure)
        let end = try heapSnapshot(named: "-end.heapsnapshot", in: failure)
        let type = "RetainGraphTestingTests.XCTestGrowthEntry"
        let before = start.ids(named: type)
        let after = end.ids(named: type)
        XCTAssertEqual(before.count, 1, "the warm-up's entry")
        XCTAssertTrue(before.isSubset(of: after))
        XCTAssertEqual(after.count - before.count, 30)
    }
}

/// What the XCTest growth check leaks, one per repetition.
final class XCTestGrowthEntry: @unchecked Sendable {}

/// The global list that keeps them.
nonisolated(unsafe) var xcTestGrowthLog: [XCTestGrowthEntry] = []
