import SessionServer
import Testing

extension InProcessServers {
    /// What ending a session over HTTP leaves behind, for each refresh strategy, on a real server.
    ///
    /// Each test starts the server on an ephemeral loopback port, opens and ends ``sessionCount``
    /// sessions with real requests, and reads the server's ledger of live session objects. Every
    /// wait has its own deadline; the suite's time limit is the backstop.
    @Suite("Session lifetimes over real HTTP", .timeLimit(.minutes(5)))
    struct SessionLifetimeTests {
        /// Sessions opened and ended per test.
        static let sessionCount = 20

        @Test(
            "a never-cancelled refresh that captures the session keeps every ended session alive",
            arguments: RefreshStrategy.leaking)
        func leakingRefreshKeepsEndedSessionsAlive(strategy: RefreshStrategy) async throws {
            let count = Self.sessionCount
            try await LiveSessionServer.run(refresh: strategy) { live in
                let opened = try await live.openAndEndSessions(count: count)
                #expect(Set(opened.map(\.id)).count == count)
                #expect(opened.allSatisfy { $0.refresh == strategy.rawValue })

                // The table has forgotten them: the server believes nothing is open.
                let afterEnd = try await live.counts()
                #expect(afterEnd.open == 0)
                #expect(afterEnd.created == count)

                // Yet every ended session is still refreshed: its refresh still holds it.
                let ledger = live.server.ledger
                let refreshed = try await live.drive { ledger.sessionsRefreshedAfterEnd == count }
                #expect(refreshed, "\(ledger.sessionsRefreshedAfterEnd) of \(count) refreshed")
                #expect(ledger.liveSessions == count)
                #expect(
                    try await live.counts() == SessionCounts(open: 0, alive: count, created: count))
                // SessionGrowthTests measures the same with HeapGrowth: the session type grows by
                // one per request, on a path from the event loop's scheduled task (or the Task).
            }
        }

        @Test(
            "a refresh that is cancelled or captures weakly lets every ended session die",
            arguments: RefreshStrategy.fixed)
        func fixedRefreshLetsEndedSessionsDie(strategy: RefreshStrategy) async throws {
            let count = Self.sessionCount
            try await LiveSessionServer.run(refresh: strategy) { live in
                let opened = try await live.openAndEndSessions(count: count)
                #expect(Set(opened.map(\.id)).count == count)

                let ledger = live.server.ledger
                let died = try await live.drive { ledger.liveSessions == 0 }
                #expect(died, "\(ledger.liveSessions) of \(count) ended sessions still alive")
                #expect(try await live.counts() == SessionCounts(open: 0, alive: 0, created: count))
                // SessionGrowthTests: with HeapGrowth, no Session grows either.
            }
        }

        @Test(
            "sessions that are open are alive and refreshed, whatever the strategy",
            arguments: RefreshStrategy.allCases)
        func openSessionsAreAliveAndRefreshed(strategy: RefreshStrategy) async throws {
            try await LiveSessionServer.run(refresh: strategy) { live in
                let opened = try await live.openSession(user: "ada")
                #expect(opened.user == "ada")
                #expect(try await live.counts() == SessionCounts(open: 1, alive: 1, created: 1))
                #expect(try await live.endSession(id: "no-such-session") == .notFound)

                let table = live.server.sessions
                #expect(table.count == 1)
                let session = try #require(table.remove(id: opened.id))
                let refreshed = try await live.drive { session.refreshCount >= 2 }
                #expect(refreshed, "refreshed \(session.refreshCount) times")
                session.end()
                #expect(session.isEnded)
                #expect(try await live.endSession(id: opened.id) == .notFound)
            }
        }
    }
}
