import Synchronization

/// Counts the sessions of one server that are still alive, for the example's tests.
///
/// Each ``Session`` counts itself in when it is created and out in its `deinit`, so
/// ``liveSessions`` is the number of session objects still in memory, whoever holds them: the
/// server's table, a request in flight, or a refresh that was never stopped. It is a stand-in
/// that only knows its own type; a census of the whole heap says the same for every type, and
/// who holds each object.
///
/// ```swift
/// let ledger = server.ledger
/// // open and end 20 sessions over HTTP, then:
/// print(ledger.liveSessions)  // 20 with a leaking strategy, soon 0 with a fixed one
/// ```
///
/// The ledger holds no session: sessions hold it.
public final class SessionLedger: Sendable {
    private let live = Atomic<Int>(0)
    private let created = Atomic<Int>(0)
    private let refreshedAfterEnd = Atomic<Int>(0)

    /// Creates an empty ledger.
    public init() {}

    /// The number of ``Session`` objects of this server that have not been deinitialised.
    public var liveSessions: Int { live.load(ordering: .acquiring) }

    /// The number of sessions this server has created.
    public var createdSessions: Int { created.load(ordering: .acquiring) }

    /// The number of ended sessions whose refresh has run at least once after they ended.
    ///
    /// A refresh that runs for an ended session is the visible half of a leak: something still
    /// calls into the session, so something still holds it.
    public var sessionsRefreshedAfterEnd: Int { refreshedAfterEnd.load(ordering: .acquiring) }

    func sessionCreated() {
        live.add(1, ordering: .acquiringAndReleasing)
        created.add(1, ordering: .acquiringAndReleasing)
    }

    func sessionDeinitialised() {
        live.subtract(1, ordering: .acquiringAndReleasing)
    }

    func endedSessionRefreshed() {
        refreshedAfterEnd.add(1, ordering: .acquiringAndReleasing)
    }
}
