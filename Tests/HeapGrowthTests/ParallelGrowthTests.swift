import Foundation
import HeapGrowth
import Testing

/// A type the growth checks and their eight neighbours all allocate.
final class Ticket: @unchecked Sendable {}

/// What the leaking growth check's body keeps: one ticket per repetition.
nonisolated(unsafe) var issuedTickets: [Ticket] = []

/// The neighbours run until both growth checks are done (or a generous deadline passes), so
/// that every round of both checks runs next to them.
final class Neighbourhood: @unchecked Sendable {
    static let shared = Neighbourhood()
    private let lock = NSLock()
    private var arrived = 0
    private var checksDone = 0

    func arrive() { lock.withLock { arrived += 1 } }
    func checkDone() { lock.withLock { checksDone += 1 } }
    var isDone: Bool { lock.withLock { checksDone >= 2 } }

    /// Waits until `count` neighbours run (or 60 s pass, when a filter left them out).
    func waitForNeighbours(_ count: Int) async {
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while lock.withLock({ arrived < count }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// A growth check in a normal (parallel) test run, next to eight tests that allocate the same
/// type: half of them keep what they make (their live count grows steadily), half allocate and
/// free bursts (their count jumps). The check reports its own body's growth exactly, states the
/// interference, and never reports the neighbours' growth as the body's.
///
/// `Scripts/growth-parallel.sh` runs this suite ten times in a row.
@Suite struct ParallelGrowthTests {
    @Test(arguments: 0..<8)
    func aNeighbourAllocatesTheSameType(index: Int) async {
        let neighbourhood = Neighbourhood.shared
        neighbourhood.arrive()
        var kept: [Ticket] = []
        var iterations = 0
        let deadline = ContinuousClock.now.advanced(by: .seconds(120))
        while !neighbourhood.isDone, ContinuousClock.now < deadline {
            iterations += 1
            var burst: [Ticket] = []
            for _ in 0..<(index % 2 == 0 ? 3 : 40) { burst.append(Ticket()) }
            if index % 2 == 0 {
                kept += burst
                if kept.count > 5_000 { kept.removeAll() }
            }
            burst.removeAll()
            // Paced, so that eight of them leave the machine to the rest of the suite.
            try? await Task.sleep(for: .microseconds(200))
        }
        #expect(iterations > 0)
    }

    @Test func aLeakingBodyIsCountedExactlyNextToTheNeighbours() async throws {
        await Neighbourhood.shared.waitForNeighbours(8)
        defer { Neighbourhood.shared.checkDone() }
        defer { issuedTickets.removeAll() }
        // Async work: it runs on the measurement's own thread, and a suspension in the middle
        // of a repetition does not lose track of it.
        let report = try await HeapGrowth.measure(repeating: 20) {
            await Task.yield()
            issuedTickets.append(Ticket())
        }
        let tickets = report.grown.filter { $0.typeName == "HeapGrowthTests.Ticket" }
        #expect(tickets.map(\.growth) == [[20, 20]], "\(report)")
        #expect(tickets.first?.attribution == .body)
        #expect(tickets.first?.perRepetition == 1)
        // The sample is one of the body's own tickets, held by its global.
        #expect(
            tickets.first?.holder?.hasPrefix("global variable HeapGrowthTests.issuedTickets")
                == true, "\(report)")
        // Never a wrong type: nothing else grew with this body (its array's storage doubles,
        // which is not steady growth), and no other type is the body's. A type whose creation
        // cannot be traced (collection storage) that another test of the run grew steadily
        // during both rounds, and not during the idle round, is reported as what it is:
        // counted from the live count, not the body's (1 full run in 20, another suite's
        // `[[Bool]]` grew so).
        let body = report.grown.filter { $0.attribution == .body }
        #expect(body.map(\.typeName) == ["HeapGrowthTests.Ticket"], "\(report)")
        #expect(
            !report.grown.contains { $0.typeName.contains("Ticket") && $0.attribution != .body },
            "\(report)")
    }

    @Test func aCleanBodyReportsNoGrowthNextToTheNeighbours() async throws {
        await Neighbourhood.shared.waitForNeighbours(8)
        defer { Neighbourhood.shared.checkDone() }
        // Synchronous work: it runs under a frame of the measurement's own.
        let report = try HeapGrowth.measure(repeating: 20) {
            var local: [Ticket] = []
            for _ in 0..<4 { local.append(Ticket()) }
            local.removeAll()
        }
        // What the neighbours keep is stated as interference, never counted as the body's.
        #expect(report.isEmpty, "\(report)")
        #expect(!report.grown.contains { $0.typeName == "HeapGrowthTests.Ticket" })
    }
}
