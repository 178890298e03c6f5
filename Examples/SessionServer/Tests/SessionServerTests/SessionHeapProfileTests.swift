import Foundation
import SessionServer
import Testing

/// `go tool pprof`, where it is installed (Debian's golang-go; `.ci/run` installs it).
enum GoPprof {
    static let go: URL? = ["/usr/bin/go", "/usr/local/go/bin/go", "/usr/lib/go/bin/go"]
        .map(URL.init(fileURLWithPath:))
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// Runs `go tool pprof ARGUMENTS`; returns its standard output, or throws with its errors.
    static func run(_ arguments: [String]) throws -> String {
        guard let go else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = go
        process.arguments = ["tool", "pprof"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PPROF_TMPDIR"] = NSTemporaryDirectory()
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(
            decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problems = String(
            decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ProfiledServerProcess.Failure.didNotStart("go tool pprof: \(problems)")
        }
        return text
    }

    /// The data rows of `-top` output (below the `flat  flat%` header).
    static func rows(_ top: String) -> [String] {
        let lines = top.split(separator: "\n").map(String.init)
        guard let header = lines.firstIndex(where: { $0.contains("flat%") }) else { return [] }
        return Array(lines.dropFirst(header + 1))
    }
}

/// The leaking strategies' sessions, seen the way an operator would: `go tool pprof` on the
/// profiled server's `/debug/pprof/heap`, over real HTTP.
@Suite(
    "session-server-profiled serves heap profiles that go tool pprof reads",
    .serialized, .timeLimit(.minutes(10)),
    .enabled(if: GoPprof.go != nil, "go tool pprof is not installed"),
    .enabled(if: ProfiledServerProcess.executableURL != nil, "session-server-profiled not built"))
struct SessionHeapProfileTests {
    /// Sessions opened and ended between two profiles.
    static let requests = 200

    /// Opens and ends `count` sessions, then waits until every ended session that can die has
    /// died (`alive` falls to the number the strategy leaks), within 60 s.
    private func openAndEnd(
        _ count: Int, on server: ProfiledServerProcess, leaking: Bool
    ) async throws {
        try await server.openAndEnd(count)
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while ContinuousClock.now < deadline {
            let (_, body) = try await server.send(.GET, "/sessions")
            let counts = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Int]
            let alive = counts?["alive"] ?? -1
            if leaking ? alive == counts?["created"] : alive == 0 { return }
            try await Task.sleep(for: .milliseconds(20))  // let the refreshes run
        }
        Issue.record("sessions did not reach their expected count within 60 s")
    }

    /// Fetches the heap profile into a temporary file; returns its path.
    private func profile(_ server: ProfiledServerProcess, _ name: String) async throws -> String {
        let (status, body) = try await server.send(.GET, "/debug/pprof/heap", timeout: .minutes(5))
        #expect(status == .ok)
        #expect(body.starts(with: [0x1f, 0x8b]), "gzip")
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("session-heap-\(UUID().uuidString)-\(name).pb.gz")
        try Data(body).write(to: url)
        return url.path
    }

    /// Runs the profiled server with `strategy`, one sample per 256 bytes (about one `Session`
    /// in four, so both batches of sessions have dozens of samples), and returns the
    /// `-top` of the profile's `Session` samples after ``requests`` sessions, and their
    /// `-top -diff_base` after as many more.
    ///
    /// Unfiltered, the leaking strategies' per-session growth is led by SwiftNIO's own
    /// allocations (two lock storages of 65 bytes, the scheduled task, its future) ahead of the
    /// 80-byte `Session`: the type label is what finds the `Session`s.
    private func profiles(_ strategy: RefreshStrategy) async throws -> (top: String, diff: String) {
        try await ProfiledServerProcess.run(
            arguments: [
                "--refresh", strategy.rawValue, "--refresh-ms", "20", "--heap-profile", "1",
            ]
        ) { server in
            try await openAndEnd(Self.requests, on: server, leaking: strategy.leaksEndedSessions)
            let base = try await profile(server, "base")
            try await openAndEnd(Self.requests, on: server, leaking: strategy.leaksEndedSessions)
            let grown = try await profile(server, "grown")
            // Where are the Sessions? Their type is a label of every sample: -tagfocus keeps
            // the samples of that type, and -top lists the sites that made them.
            let session = "-tagfocus=type=^SessionServer\\.Session$"
            let top = try GoPprof.run(["-top", "-sample_index=inuse_space", session, grown])
            let diff = try GoPprof.run(
                ["-top", "-sample_index=inuse_space", session, "-diff_base", base, grown])
            return (top, diff)
        }
    }

    @Test(arguments: RefreshStrategy.leaking)
    func theLeakingSessionsAllocationSiteComesFirstAndGrows(strategy: RefreshStrategy) async throws
    {
        let (top, diff) = try await profiles(strategy)
        let first = try #require(GoPprof.rows(top).first, "\(top)")
        #expect(first.contains("SessionServer.Session"), "\(strategy): \(top)")
        #expect(
            first.contains("__allocating_init") || first.contains("SessionTable.open"), "\(top)")
        let grew = GoPprof.rows(diff).first { $0.contains("SessionServer.Session.") }
        let flat = grew?.split(separator: " ").first.map(String.init) ?? ""
        #expect(!flat.isEmpty && !flat.hasPrefix("-") && flat != "0", "\(strategy): \(diff)")
    }

    // One fixed strategy per mechanism: each run symbolicates a debug build's samples cold.
    @Test(arguments: [RefreshStrategy.repeatedTaskWeak, .taskLoopCancelled])
    func theFixedSessionsAllocationSiteDoesNotGrow(strategy: RefreshStrategy) async throws {
        let (_, diff) = try await profiles(strategy)
        let grew = GoPprof.rows(diff).filter { row in
            row.contains("SessionServer.Session.")
                && !(row.split(separator: " ").first.map { $0 == "0" || $0.hasPrefix("-") } ?? true)
        }
        #expect(grew.isEmpty, "\(strategy): \(diff)")
    }
}
