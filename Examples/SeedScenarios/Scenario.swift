import Foundation
import LeakTracking

/// One seed scenario from `SCENARIOS.md`, reproduced live with real timers and run loops.
///
/// A scenario builds an owner (a view-controller-like class translated from the seeds), starts
/// its timer, "closes" it (drops the last variable holding it and calls
/// ``LeakTracking/LeakWatcher/expectDeallocation(of:within:reason:label:fileID:filePath:line:column:)``), drives the current
/// run loop until the verdict settles, and returns what the watcher concluded.
///
/// ```swift
/// let result = SeedScenarios.scenario("S1")?.run()
/// print(result?.line ?? "")   // S1    LEAK       strong target: run loop main ⇒ …
/// ```
///
/// Run scenarios on the main thread: their timers are scheduled on the current run loop, and
/// the main run loop is the one that also services the main dispatch queue.
public struct Scenario: Sendable, Identifiable {
    /// The case id from `SCENARIOS.md` (`S1`, `S2a`, …), or `FT` for the plain Foundation timer.
    public let id: String
    /// What the scenario does, in a few words.
    public let title: String
    /// The verdict `SCENARIOS.md` requires.
    public let expected: Verdict
    let body: @Sendable (ScenarioContext) throws -> WatchVerdict

    /// Creates a scenario.
    ///
    /// - Parameters:
    ///   - id: The case id.
    ///   - title: A short description, printed after "died:" when the owner died.
    ///   - expected: The verdict the case must give.
    ///   - body: Builds the owner, closes it and returns the watcher's verdict on it.
    public init(
        id: String, title: String, expected: Verdict,
        body: @escaping @Sendable (ScenarioContext) throws -> WatchVerdict
    ) {
        self.id = id
        self.title = title
        self.expected = expected
        self.body = body
    }

    /// Runs the scenario with a private graph and watcher, then undoes what it leaked on
    /// purpose (invalidates leaked timers, stops threads) so later scenarios run undisturbed.
    ///
    /// - Parameter grace: The grace period given to the closed owner.
    /// - Returns: The verdict, or an error result when the scenario could not be set up.
    public func run(grace: Duration = .milliseconds(50)) -> ScenarioResult {
        let context = ScenarioContext(grace: grace)
        defer { context.cleanUp() }
        do {
            let verdict = try body(context)
            return ScenarioResult(scenario: self, outcome: .verdict(verdict))
        } catch {
            return ScenarioResult(scenario: self, outcome: .failed("\(error)"))
        }
    }
}

/// What running a ``Scenario`` gave.
public struct ScenarioResult: Sendable {
    /// How the scenario ended.
    public enum Outcome: Sendable {
        /// The watcher's verdict on the closed owner.
        case verdict(WatchVerdict)
        /// The scenario could not be set up (a timer initialiser threw).
        case failed(String)
    }

    /// The scenario that ran.
    public let scenario: Scenario
    /// How it ended.
    public let outcome: Outcome

    /// The watcher's verdict, or `nil` when the scenario failed.
    public var watchVerdict: WatchVerdict? {
        if case .verdict(let verdict) = outcome { return verdict }
        return nil
    }

    /// The verdict word (`LEAK`, `OK`, `TRANSIENT`, `ZOMBIE`), or `ERROR`.
    public var verdictWord: String { watchVerdict?.verdict.rawValue ?? "ERROR" }

    /// The leak, zombie or transient report, if there is one.
    public var report: LeakReport? { watchVerdict?.report }

    /// Whether the verdict is the one `SCENARIOS.md` requires.
    public var isExpected: Bool { watchVerdict?.verdict == scenario.expected }

    /// A short explanation: the watcher's summary for a problem, "died: …" when the owner died.
    public var explanation: String {
        switch outcome {
        case .failed(let message): return "could not run: \(message)"
        case .verdict(let verdict):
            return verdict.verdict == .ok ? "died: \(scenario.title)" : verdict.summary
        }
    }

    /// The table line: id, verdict word and explanation in columns,
    /// such as `S1    LEAK       strong target: run loop main ⇒ RunLoopTimer ⇒ …`.
    public var line: String {
        let id = scenario.id.padding(toLength: 4, withPad: " ", startingAt: 0)
        let word = verdictWord.padding(toLength: 9, withPad: " ", startingAt: 0)
        return "\(id)  \(word)  \(explanation)"
    }

    /// The references in the report (path, cycle and context) that ReferenceReflection
    /// discovered rather than a timer recording them, one description each, such as
    /// `ClockViewController ⇒ .timer ⇒ RunLoopTimer`.
    public var discoveredEdges: [String] {
        guard let report else { return [] }
        var seen = Set<String>()
        var edges: [String] = []
        let references = report.path + (report.cycle ?? []) + report.context
        // What the census found reading the whole heap is in the report too: left out here.
        for reference in references where reference.isDiscovered && reference.foundIn != "heap" {
            let from = report.object(reference.from)?.shortName ?? reference.from
            let to = report.object(reference.to)?.shortName ?? reference.to
            let edge =
                "\(from) \(reference.arrow) \(reference.description) \(reference.arrow) \(to)"
            if seen.insert(edge).inserted { edges.append(edge) }
        }
        return edges
    }
}
