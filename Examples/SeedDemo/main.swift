// seed-demo: every seed scenario of SCENARIOS.md, run live with real timers and run loops.
//
// Run with `make demo` (or `swift run seed-demo`). Each scenario builds a view controller
// translated from the seeds, starts its timer on the main run loop (S16: on a background
// thread's run loop that never runs), closes the controller, and asks a LeakWatcher with a
// private graph what became of it. The example never declares `owner ⇒ timer` nor what a
// closure captures: ReferenceReflection discovers those references, and reports mark them
// "(discovered)".
//
// Output: the full reports of S1 and S4, the verdict table (one line per case id), the
// references reflection discovered, and the report of a plain Foundation.Timer. Then the
// second part: owners that leak through the platform's own primitives (a plain Foundation
// timer, a DispatchSourceTimer, a Task sleep loop, a NotificationCenter observer, a global
// cache), each with its fixed variant, explained by the heap census. Exits 1 when a verdict
// differs from the expected one.
import Foundation
import HeapCensus
import SeedScenarios

// First thing: objects allocated before the census starts are unknown to it.
HeapCensus.start()

let grace = Duration.milliseconds(50)
let results = SeedScenarios.all.map { $0.run(grace: grace) }

func result(_ id: String) -> ScenarioResult? { results.first { $0.scenario.id == id } }

func printReport(of id: String) {
    guard let result = result(id) else { return }
    print("== \(id): \(result.scenario.title) ==")
    print(result.report?.text ?? result.line)
    print()
}

print("RetainGraph seed demo: \(SeedScenarios.table.count) seed cases, live, grace \(grace).")
print("References marked (discovered) were found by ReferenceReflection, not declared.")
print()
printReport(of: "S1")
printReport(of: "S4")

print("== Verdicts ==")
let table = results.filter { $0.scenario.id != SeedScenarios.foundationTimer.id }
for result in table { print(result.line) }
print()

print("== References ReferenceReflection discovered (the example declares none of them) ==")
for result in results {
    let edges = result.discoveredEdges
    guard !edges.isEmpty else { continue }
    let id = result.scenario.id.padding(toLength: 4, withPad: " ", startingAt: 0)
    for edge in edges { print("\(id)  \(edge)") }
}
print()

printReport(of: SeedScenarios.foundationTimer.id)

print("== Part 2: the platform's own primitives, no RetainGraph type, explained by HeapCensus ==")
let platform = PlatformScenarios.table.map { $0.run(grace: grace) }
for result in platform { print(result.line) }
print()
for result in platform where result.scenario.id == "P3a" {
    print("== \(result.scenario.id): \(result.scenario.title) ==")
    print(result.report?.text ?? result.line)
    print()
}

let unexpected = (results + platform).filter { !$0.isExpected }
if unexpected.isEmpty {
    print("All \(results.count + platform.count) verdicts are the expected ones.")
} else {
    for result in unexpected {
        print(
            "UNEXPECTED \(result.scenario.id): \(result.verdictWord), expected \(result.scenario.expected)"
        )
    }
    exit(1)
}
