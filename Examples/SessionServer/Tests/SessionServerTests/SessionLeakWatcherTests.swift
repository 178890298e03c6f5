import LeakTracking
import SessionServer
import Testing

extension InProcessServers {
    /// RetainGraph's `LeakWatcher` on the sessions `DELETE` ends, used as a server developer would:
    /// hand each ended session to the watcher, then ask for the verdicts.
    ///
    /// Every wait inside has its own deadline; the suite's time limit is the backstop.
    @Suite("LeakWatcher on ended sessions", .timeLimit(.minutes(5)))
    struct SessionLeakWatcherTests {
        static let sessionCount = 5

        /// Starts a server whose ended sessions go to `watcher`, opens and ends
        /// ``sessionCount`` sessions one after the other, waits until the strategy's outcome
        /// is visible in the ledger, then returns the watcher's verdicts.
        private func verdicts(for strategy: RefreshStrategy) async throws -> [WatchVerdict] {
            let watcher = LeakWatcher(defaultGrace: .milliseconds(100))
            let count = Self.sessionCount
            let watchEndedSession: @Sendable (Session) -> Void = { session in
                watcher.expectDeallocation(
                    of: session, reason: "DELETE /sessions/\(session.id)", label: session.id)
            }
            return try await LiveSessionServer.run(
                refresh: strategy, onSessionEnded: watchEndedSession
            ) { live in
                for index in 1...count {
                    _ = try await live.openAndEndSession(user: "user-\(index)")
                }
                #expect(watcher.watchCount == count)
                let ledger = live.server.ledger
                let settled = try await live.drive {
                    strategy.leaksEndedSessions
                        ? ledger.sessionsRefreshedAfterEnd == count : ledger.liveSessions == 0
                }
                let state =
                    "\(ledger.liveSessions) alive, \(ledger.sessionsRefreshedAfterEnd) refreshed"
                #expect(settled, "\(state)")
                return await watcher.settled(timeout: .seconds(60))
            }
        }

        @Test(
            "reports every ended session of a leaking refresh as a LEAK of Session",
            arguments: RefreshStrategy.leaking)
        func reportsLeakedSessions(strategy: RefreshStrategy) async throws {
            let verdicts = try await verdicts(for: strategy)
            #expect(verdicts.count == Self.sessionCount)
            for verdict in verdicts {
                #expect(verdict.verdict == .leak, "\(verdict.summary)")
                #expect(verdict.typeName == "SessionServer.Session")
                #expect(verdict.reason.hasPrefix("DELETE /sessions/s"))
                let report = try #require(verdict.report)
                #expect(report.subject.typeName == "SessionServer.Session")
                // Who holds it (issue 13's census): the path's first reference should name the
                // event loop's scheduled task or the Task, and its last `captures self`.
            }
        }

        @Test(
            "says OK for every ended session of a cancelled or weak refresh",
            arguments: RefreshStrategy.fixed)
        func saysOKForFixedSessions(strategy: RefreshStrategy) async throws {
            let verdicts = try await verdicts(for: strategy)
            #expect(verdicts.count == Self.sessionCount)
            for verdict in verdicts {
                #expect(verdict.verdict == .ok, "\(verdict.report?.text ?? verdict.summary)")
                #expect(verdict.report == nil)
            }
        }
    }
}
