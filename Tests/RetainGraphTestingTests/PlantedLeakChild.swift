import Foundation
import LeakTracking
import RetainGraphTesting
import Testing

/// Whether this process is the child run that ``TestReportingTests`` starts: only then does the
/// planted leak below run (and fail, on purpose).
let isPlantedLeakChild =
    ProcessInfo.processInfo.environment["RETAINGRAPH_PLANTED_LEAK_CHILD"] == "1"

/// A test that leaks on purpose, run only in a child process so that its failure can be read
/// from what Swift Testing writes (xUnit XML, the event stream, attachments).
@Suite("Planted leak (runs only in TestReportingTests' child process)")
struct PlantedLeakChild {
    @Test(
        "A planted S1 leak under the trait",
        .enabled(if: isPlantedLeakChild),
        .detectsLeaks(grace: .milliseconds(20), graph: testingGraph))
    func plantedLeak() throws {
        let screen = TickingScreen()
        try screen.start()
        // The child process exits after the run: the timer's leak ends with it.
        // planted-watch: TestReportingTests expects the issue on the next line.
        LeakWatcher.current.expectDeallocation(of: screen, reason: "screen closed")
    }
}
