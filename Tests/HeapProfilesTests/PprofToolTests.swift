import Foundation
import HeapCensus
import HeapProfiles
import Testing

/// Objects of a type only these tests make.
final class ProfiledThing {
    var payload = (0, 0, 0, 0, 0, 0)
}

/// `go tool pprof`, where it is installed (Debian's golang-go; `.ci/run` installs it).
enum PprofTool {
    static let go: URL? = ["/usr/bin/go", "/usr/local/go/bin/go", "/usr/lib/go/bin/go"]
        .map(URL.init(fileURLWithPath:))
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// Runs `go tool pprof ARGUMENTS` and returns its standard output.
    static func run(_ arguments: [String]) throws -> String {
        guard let go else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = go
        process.arguments = ["tool", "pprof"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = environment["HOME"] ?? NSTemporaryDirectory()
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
        #expect(process.terminationStatus == 0, "go tool pprof \(arguments): \(problems)")
        return text
    }

    /// Writes `bytes` to a new temporary file and returns its path.
    static func file(_ bytes: [UInt8], named name: String) throws -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("heap-\(UUID().uuidString)-\(name).pb.gz")
        try Data(bytes).write(to: url)
        return url.path
    }
}

/// The first data row of `go tool pprof -top`: the heaviest function by flat value.
func firstRow(ofTop text: String) -> String? {
    let lines = text.split(separator: "\n").map(String.init)
    guard let header = lines.firstIndex(where: { $0.contains("flat%") }) else { return nil }
    return lines.dropFirst(header + 1).first
}

@Suite(.serialized, .enabled(if: PprofTool.go != nil, "go tool pprof is not installed"))
struct PprofToolTests {
    /// Keeps only the samples of this test's type (other suites allocate meanwhile).
    static let things = "-tagfocus=type=ProfiledThing$"

    @Test func goToolPprofReadsTheProfileAndListsTheAllocatingFunctionFirst() throws {
        // Each test keeps its own things: a global shared by two tests let one test's reset
        // free the other's things between its two samples (issue 31: 494 of 500 seen).
        var kept: [ProfiledThing] = []
        let profile = try SamplingTestLock.withLock { () throws -> [UInt8] in
            try #require(HeapCensus.startSampling(meanInterval: 1))
            kept = makeProfiledThings(2_000)
            HeapCensus.stopSampling()
            return try HeapProfile.sampled().gzipped()
        }
        defer { withExtendedLifetime(kept) {} }
        #expect(profile.starts(with: [0x1f, 0x8b]), "gzip")
        let path = try PprofTool.file(profile, named: "things")
        let top = try PprofTool.run(["-top", "-sample_index=inuse_space", Self.things, path])
        let row = try #require(firstRow(ofTop: top), "\(top)")
        #expect(row.contains("ProfiledThing") || row.contains("makeProfiledThings"), "\(top)")
        // The type is a label of every sample.
        let tags = try PprofTool.run(["-tags", path])
        #expect(tags.contains("ProfiledThing"), "\(tags)")
        // Files and lines come from the profile itself: pprof never saw the binary.
        let lines = try PprofTool.run(["-top", "-lines", "-sample_index=inuse_space", path])
        #expect(lines.contains("PprofToolTests.swift:"), "\(lines)")
    }

    @Test func aDiffOfTwoProfilesShowsWhatGrewAsTheInProcessGrowthDoes() throws {
        var kept: [ProfiledThing] = []
        let (earlier, later) = try SamplingTestLock.withLock {
            () throws -> (SampledHeap, SampledHeap) in
            try #require(HeapCensus.startSampling(meanInterval: 1))
            defer { HeapCensus.stopSampling() }
            let earlier = HeapCensus.sampledHeap()
            kept = makeProfiledThings(500)
            return (earlier, HeapCensus.sampledHeap())
        }
        defer { withExtendedLifetime(kept) {} }
        let base = try PprofTool.file(try HeapProfile(earlier).gzipped(), named: "base")
        let grown = try PprofTool.file(try HeapProfile(later).gzipped(), named: "grown")
        let diff = try PprofTool.run(
            ["-top", "-sample_index=inuse_space", Self.things, "-diff_base", base, grown])
        let row = try #require(firstRow(ofTop: diff), "\(diff)")
        #expect(row.contains("ProfiledThing") || row.contains("makeProfiledThings"), "\(diff)")
        // The same growth in process, with the census's type name.
        let growth = later.growth(since: earlier)
        let things = try #require(growth.first { $0.typeName.hasSuffix("ProfiledThing") })
        #expect(things.objects.rounded() == 500)
        let flat = row.split(separator: " ", omittingEmptySubsequences: true).first.map(String.init)
        #expect(flat == Self.pprofBytes(things.bytes), "pprof \(row), in process \(things.bytes)")
    }

    /// A byte count as pprof's -top prints it (`31.25kB`, `512B`).
    static func pprofBytes(_ bytes: Double) -> String {
        // pprof: B below 1 kB, then kB, MB, GB (powers of 1,024) with up to two decimals,
        // trailing zeros dropped.
        let units = [("GB", 1_073_741_824.0), ("MB", 1_048_576.0), ("kB", 1024.0)]
        for (unit, scale) in units where bytes >= scale {
            var text = String(format: "%.2f", bytes / scale)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text + unit
        }
        return "\(Int(bytes))B"
    }
}

@inline(never)
func makeProfiledThings(_ count: Int) -> [ProfiledThing] {
    (0..<count).map { _ in ProfiledThing() }
}
