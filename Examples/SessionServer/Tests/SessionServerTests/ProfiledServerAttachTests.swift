import Foundation
import NIOHTTP1
import ProcessAttach
import Testing

/// The setup the README recommends in production, `session-server-profiled` with heap sampling
/// on, attached to from outside before and after it served heap profiles over real HTTP: what
/// `retain-graph attach PID` and `--growth` see (issue 31).
///
/// A profile's symbolication maps `libswiftCore.so` and `libc.so.6` a second time, whole and
/// read-only. The attach used to take that view for the images: after one profile it lost
/// every `String`, `[UInt8]` and `Dictionary` storage, found no glibc arena, and a growth
/// measurement said "no type grew" while the server leaked.
@Suite(
    "session-server-profiled seen from outside after it served heap profiles",
    .serialized, .timeLimit(.minutes(10)),
    .enabled(if: ProfiledServerProcess.executableURL != nil, "session-server-profiled not built"))
struct ProfiledServerAttachTests {
    /// Sessions opened and ended (and leaked) before the first attach.
    static let sessions = 20
    /// Sessions opened and ended after the profiles, between the growth's two attaches.
    static let later = 10

    @Test("After two heap profiles an attach finds every object found before, then the growth")
    func attachAfterHeapProfiles() async throws {
        try await ProfiledServerProcess.run(
            arguments: ["--refresh", "task-loop-leaking", "--heap-profile", "on"]
        ) { server in
            try await server.openAndEnd(Self.sessions)
            let before = try HeapSnapshot.capture(processID: server.processID)
            for _ in 0..<2 {
                let (status, body) = try await server.send(
                    .GET, "/debug/pprof/heap", timeout: .minutes(5))
                #expect(status == .ok)
                #expect(body.starts(with: [0x1f, 0x8b]), "gzip")
            }
            let after = try HeapSnapshot.capture(processID: server.processID)

            // Only the profiles ran in between, and they only add objects (the symbolicator's
            // caches): every type seen before is still there, at least as many.
            let counts = Dictionary(
                uniqueKeysWithValues: after.countsByType().map { ($0.typeName, $0.count) })
            let lost = before.countsByType().filter { (counts[$0.typeName] ?? 0) < $0.count }
            #expect(lost.isEmpty, "types with fewer objects after the profiles: \(lost)")
            #expect(counts["SessionServer.Session"] == Self.sessions)
            for storage in [
                "String storage", "[UInt8] storage",
                "[String: MetadataValue] storage",
            ] {
                #expect((counts[storage] ?? 0) > 0, "\(storage) after the profiles")
            }
            #expect(!after.limitations.contains { $0.contains("arena") }, "\(after.limitations)")
            let walk = try #require(after.statistics.heapWalk)
            #expect(walk.isComplete, "\(walk.problems)")
            #expect(walk.arenasWalked == walk.arenasListed)

            // What `--growth` measures next: the sessions leaked meanwhile, each one.
            try await server.openAndEnd(Self.later)
            let grown = try HeapSnapshot.capture(processID: server.processID)
            let growth = HeapComparison(from: after, to: grown)
            let sessions = try #require(
                growth.grown.first { $0.typeName == "SessionServer.Session" }, "\(growth.text)")
            #expect(sessions.growth == Self.later)
        }
    }
}
