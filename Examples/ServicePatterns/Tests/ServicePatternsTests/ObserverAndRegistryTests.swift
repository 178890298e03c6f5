import HeapCensus
import LeakTracking
import RetainGraphTesting
import ServicePatterns
import Testing

@Suite("A NotificationCenter block observer")
struct SettingsObserverTests {
    @Test(.detectsLeaks)
    func removingTheObserverReleasesIt() {
        HeapCensus.start()
        let observer = SettingsObserver()
        observer.start()
        observer.stop()
        LeakWatcher.current.expectDeallocation(of: observer, reason: "observer stopped")
    }

    @Test func forgettingToRemoveTheObserverLeaks() async throws {
        try await expectingLeak("the observer is never removed") {
            HeapCensus.start()
            let observer = SettingsObserver()
            observer.start()
            LeakWatcher.current.expectDeallocation(of: observer, reason: "observer closed")
        }
    }
}

@Suite("A URLSession whose delegate is the client")
struct APIClientTests {
    @Test(.detectsLeaks)
    func invalidatingTheSessionReleasesTheClient() {
        HeapCensus.start()
        let client = APIClient()
        client.start()
        client.stop()
        LeakWatcher.current.expectDeallocation(of: client, reason: "client stopped")
    }

    @Test func forgettingToInvalidateTheSessionLeaks() async throws {
        try await expectingLeak("the session is never invalidated") {
            HeapCensus.start()
            let client = APIClient()
            client.start()
            LeakWatcher.current.expectDeallocation(of: client, reason: "client closed")
        }
    }
}

@Suite("A registry singleton holding closures")
struct SubscriberTests {
    @Test(.detectsLeaks)
    func unregisteringReleasesTheSubscriber() {
        HeapCensus.start()
        let subscriber = Subscriber(name: "fixed")
        subscriber.start()
        subscriber.stop()
        LeakWatcher.current.expectDeallocation(of: subscriber, reason: "subscriber stopped")
    }

    @Test func forgettingToUnregisterLeaks() async throws {
        try await expectingLeak("the subscriber is never unregistered") {
            HeapCensus.start()
            let subscriber = Subscriber(name: "forgotten")
            subscriber.start()
            LeakWatcher.current.expectDeallocation(of: subscriber, reason: "subscriber closed")
        }
    }
}

@Suite("A parent and a child with a strong delegate")
struct DocumentTests {
    @Test(.detectsLeaks)
    func aWeakDelegateLetsTheDocumentGo() {
        HeapCensus.start()
        let document = Document(delegateHeldWeakly: true)
        LeakWatcher.current.expectDeallocation(of: document, reason: "document closed")
    }

    @Test func aStrongDelegateLeaksTheDocument() async throws {
        try await expectingLeak("the toolbar holds its delegate strongly") {
            HeapCensus.start()
            let document = Document(delegateHeldWeakly: false)
            LeakWatcher.current.expectDeallocation(of: document, reason: "document closed")
        }
    }
}
