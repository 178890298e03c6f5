// The code of README.md's "Use it in your package", verbatim between the markers
// (RepositoryTests checks that README.md shows exactly this).
// README:begin
import LeakTracking
import RetainGraphTesting
import Testing
import TrackedTimers

/// Your code: it never tells RetainGraph that it keeps its timer, nor what the timer's
/// closure captures.
final class Ticker {
    var timer: RunLoopTimer?
    var ticks = 0

    func start() throws {
        timer = try RunLoopTimer.scheduled(interval: 60, repeats: true) { _ in
            self.ticks += 1
        }
    }

    func stop() {
        timer?.invalidate()
    }
}

@Test(.detectsLeaks)
func stoppingTheTickerReleasesIt() throws {
    let ticker = Ticker()
    try ticker.start()
    ticker.stop()
    LeakWatcher.current.expectDeallocation(of: ticker, reason: "ticker stopped")
}
// README:end
