import XCTest

/// Counts events through a callback that captures it: a closure cycle, made only by the XCTest
/// process (Swift Testing's process leaks none of it).
final class Recorder {
    var onEvent: (() -> Void)?
    var events = 0
}

/// Run by XCTest: leaves the scenarios behind, and a closure cycle of its own, and passes.
final class ExitLeaksXCTests: XCTestCase {
    func testLeavesAScenarioBehind() async {
        await leaveScenariosBehind()
        XCTAssertEqual(startedPollers, 1)
    }

    func testLeavesARecorderBehind() {
        let recorder = Recorder()  // RECORDER-LINE
        recorder.onEvent = { recorder.events += 1 }
        recorder.onEvent?()
        XCTAssertEqual(recorder.events, 1)
    }
}
