import Foundation
import HeapCensus
import Testing

/// Whether this process is the child run ``EnvironmentStartTests`` starts with
/// `RETAINGRAPH_CENSUS=1`.
let isCensusEnvironmentChild =
    ProcessInfo.processInfo.environment["RETAINGRAPH_CENSUS_CHILD"] == "1"

/// Held by a global in the child, allocated before any test code calls the census.
nonisolated(unsafe) var environmentHeld: [Owner] = []

@Suite("RETAINGRAPH_CENSUS=1 starts the census at launch", .enabled(if: !isCensusEnvironmentChild))
struct EnvironmentStartTests {
    @Test("A process launched with the variable records from its start and exits cleanly")
    func environmentStartsTheCensus() throws {
        let bundle = CommandLine.arguments[0]
        try #require(bundle.hasSuffix(".xctest"), "run by swift test: \(bundle)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bundle)
        process.arguments = [
            "--testing-library", "swift-testing", "--filter",
            "CensusEnvironmentChild/recordsWithoutStart",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["RETAINGRAPH_CENSUS"] = "1"
        environment["RETAINGRAPH_CENSUS_CHILD"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(
            decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("Test recordsWithoutStart() passed"), "the child ran it: \(text)")
    }
}

/// Runs only in the child process, where the environment started the census.
@Suite("Census started by the environment (child process only)")
struct CensusEnvironmentChild {
    @Test(.enabled(if: isCensusEnvironmentChild))
    func recordsWithoutStart() throws {
        #expect(HeapCensus.isRunning)
        environmentHeld.append(Owner())
        let heap = HeapCensus.snapshot()
        let path = try #require(heap.retentionPath(to: environmentHeld[0]))
        guard case .globalVariable(let name) = path.holder else {
            Issue.record("holder is \(path.holder.description)")
            return
        }
        #expect(name.contains("environmentHeld"))
    }
}
