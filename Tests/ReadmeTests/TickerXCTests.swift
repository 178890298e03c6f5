import Foundation
import RetainGraphTesting
import XCTest

// README.md's XCTest example, verbatim between the markers.
// README:begin
final class TickerXCTests: XCTestCase {
    func testStoppingTheTickerReleasesIt() throws {
        let ticker = Ticker()
        trackForLeaks(ticker)
        try ticker.start()
        ticker.stop()
    }
}
// README:end

/// The README's XCTest example without `ticker.stop()`. swift-corelibs-xctest has no
/// `XCTExpectFailure`, so the expected failure is caught by overriding `recordFailure`, as
/// RetainGraphTestingTests does, and checked in `tearDown()` (after the teardown check).
final class ForgottenStopXCTests: XCTestCase {
    private var caught: [(text: String, line: Int)] = []
    private var watchLine = 0
    private var leaked: Ticker?

    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
        expected: Bool
    ) {
        if description.hasPrefix("LEAK: ReadmeTests.Ticker") {
            caught.append((description, lineNumber))
            return
        }
        super.recordFailure(
            withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }

    override func tearDown() {
        XCTAssertEqual(caught.count, 1, "the teardown check reports the leak once")
        XCTAssertEqual(caught.first?.line, watchLine, "at the trackForLeaks line")
        let text = caught.first?.text ?? ""
        XCTAssertTrue(
            text.contains(
                "↓ strong · .state.action.always (a closure capturing Ticker) (discovered)"),
            text)
        XCTAssertTrue(text.contains("ReadmeTests.Ticker ⇒ .timer"), text)
        leaked?.stop()
        super.tearDown()
    }

    func testForgottenStopFailsWithTheDiscoveredPath() throws {
        let ticker = Ticker()
        leaked = ticker
        watchLine = #line + 1
        trackForLeaks(ticker)
        try ticker.start()
    }
}
