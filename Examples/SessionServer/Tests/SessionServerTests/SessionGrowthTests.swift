import HeapCensus
import HeapGrowth
import SessionServer
import Testing

extension InProcessServers {
    /// What each request leaves behind on the heap, measured with HeapGrowth on the real server:
    /// one `POST /sessions` + `DELETE /sessions/:id` is the repeated work.
    ///
    /// The census counts the whole process: no other server makes sessions in it meanwhile (see
    /// ``InProcessServers``). Other suites' objects may grow beside it; only `Session` is checked.
    @Suite("Heap growth per request, over real HTTP", .serialized, .timeLimit(.minutes(10)))
    struct SessionGrowthTests {
        /// Repetitions per measured round.
        static let repetitions = 20

        /// Waits until what the requests started has settled: every ended session either died or
        /// was refreshed again after its end (so its refresh still holds it).
        static func settle(_ live: LiveSessionServer) async throws {
            let ledger = live.server.ledger
            let settled = try await live.drive {
                let ended = ledger.createdSessions - ledger.liveSessions
                return ledger.liveSessions == 0
                    || ledger.sessionsRefreshedAfterEnd + ended >= ledger.createdSessions
            }
            #expect(settled, "sessions did not settle")
        }

        @Test(
            "a leaking refresh leaves one Session per request, on a path from what keeps refreshing it",
            arguments: RefreshStrategy.leaking)
        func leakingRefreshGrowsTheHeapBySessions(strategy: RefreshStrategy) async throws {
            HeapCensus.start()
            try await LiveSessionServer.run(refresh: strategy) { live in
                let growth = try await HeapGrowth.measure(
                    repeating: Self.repetitions, settle: { try await Self.settle(live) }
                ) {
                    _ = try await live.openAndEndSession(user: "growth")
                }
                let session = try #require(
                    growth.grown.first { $0.typeName == "SessionServer.Session" }, "\(growth.text)")
                #expect(session.growth == [Self.repetitions, Self.repetitions], "\(growth.text)")
                #expect(session.path.last?.typeName == "SessionServer.Session")
                #expect(session.path.last?.label?.hasPrefix("captures") == true, "\(growth.text)")
                switch strategy.mechanism {
                case .taskLoop:
                    #expect(session.holder?.hasPrefix("a Task") == true, "\(growth.text)")
                case .repeatedTask:
                    #expect(
                        session.path.contains { $0.typeName.contains("RepeatedTask") },
                        "\(growth.text)")
                }
            }
        }

        @Test(
            "a refresh that is cancelled or captures weakly leaves no Session behind",
            arguments: RefreshStrategy.fixed)
        func fixedRefreshDoesNotGrowSessions(strategy: RefreshStrategy) async throws {
            HeapCensus.start()
            try await LiveSessionServer.run(refresh: strategy) { live in
                let growth = try await HeapGrowth.measure(
                    repeating: Self.repetitions, settle: { try await Self.settle(live) }
                ) {
                    _ = try await live.openAndEndSession(user: "growth")
                }
                #expect(
                    !growth.grown.contains { $0.typeName == "SessionServer.Session" },
                    "\(growth.text)")
            }
        }
    }
}
