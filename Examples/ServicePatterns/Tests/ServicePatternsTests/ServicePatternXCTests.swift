import HeapCensus
import RetainGraphTesting
import ServicePatterns
import XCTest

/// The same services in XCTest: `trackForLeaks` fails a test whose object outlives it.
final class ServicePatternXCTests: XCTestCase {
    override func setUp() {
        super.setUp()
        HeapCensus.start()
    }

    func testStoppingThePollerReleasesIt() {
        let poller = Poller()
        trackForLeaks(poller)
        poller.start()
        poller.stop()
    }

    func testStoppingTheHeartbeatReleasesIt() {
        let heartbeat = Heartbeat()
        trackForLeaks(heartbeat)
        heartbeat.start()
        heartbeat.stop()
    }

    func testUnregisteringReleasesTheSubscriber() {
        let subscriber = Subscriber(name: "xctest")
        trackForLeaks(subscriber)
        subscriber.start()
        subscriber.stop()
    }
}
