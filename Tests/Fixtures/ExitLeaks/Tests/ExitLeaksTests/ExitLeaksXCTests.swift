import XCTest

/// Run by XCTest: leaves the scenarios behind and passes.
final class ExitLeaksXCTests: XCTestCase {
    func testLeavesAScenarioBehind() async {
        await leaveScenariosBehind()
        XCTAssertEqual(startedPollers, 1)
    }
}
