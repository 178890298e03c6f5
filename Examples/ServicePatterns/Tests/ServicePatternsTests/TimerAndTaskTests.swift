import HeapCensus
import LeakTracking
import RetainGraphTesting
import ServicePatterns
import Testing

@Suite("A cache refresher on a Foundation.Timer on a background run loop")
struct CacheRefresherTests {
    @Test(.detectsLeaks)
    func stoppingTheRefresherReleasesIt() {
        HeapCensus.start()
        let refresher = CacheRefresher()
        refresher.start()
        refresher.stop()
        LeakWatcher.current.expectDeallocation(of: refresher, reason: "refresher stopped")
    }

    @Test func aRefresherWhoseTimerCapturesItStronglyLeaks() async throws {
        try await expectingLeak("the timer's block captures the refresher strongly") {
            HeapCensus.start()
            let refresher = CacheRefresher(capturesWeakly: false)
            refresher.start()
            LeakWatcher.current.expectDeallocation(of: refresher, reason: "refresher closed")
        }
    }
}

@Suite("A Task polling loop")
struct PollerTests {
    @Test(.detectsLeaks)
    func stoppingThePollerReleasesIt() {
        HeapCensus.start()
        let poller = Poller()
        poller.start()
        poller.stop()
        LeakWatcher.current.expectDeallocation(of: poller, reason: "poller stopped")
    }

    @Test func forgettingToStopThePollerLeaks() async throws {
        try await expectingLeak("the poller is never stopped") {
            HeapCensus.start()
            let poller = Poller()
            poller.start()
            LeakWatcher.current.expectDeallocation(of: poller, reason: "poller closed")
        }
    }
}

@Suite("A DispatchSourceTimer heartbeat")
struct HeartbeatTests {
    @Test(.detectsLeaks)
    func stoppingTheHeartbeatReleasesIt() {
        HeapCensus.start()
        let heartbeat = Heartbeat()
        heartbeat.start()
        heartbeat.stop()
        LeakWatcher.current.expectDeallocation(of: heartbeat, reason: "heartbeat stopped")
    }

    @Test func forgettingToStopTheHeartbeatLeaks() async throws {
        try await expectingLeak("the heartbeat is never stopped") {
            HeapCensus.start()
            let heartbeat = Heartbeat()
            heartbeat.start()
            LeakWatcher.current.expectDeallocation(of: heartbeat, reason: "heartbeat closed")
        }
    }
}
