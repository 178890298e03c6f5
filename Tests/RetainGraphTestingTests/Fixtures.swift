import Foundation
import RetainGraph
import TrackedTimers

/// The private graph these tests record into (never `LiveGraph.shared`).
let testingGraph = LiveGraph()

/// An owner that keeps a repeating timer, as the seeds' view controllers do.
final class TickingScreen {
    var timer: RunLoopTimer?

    /// Seed S1: schedules a repeating timer on this thread's run loop with `self` as its strong
    /// target and keeps it in `timer`. Unless `stop()` is called, the screen leaks.
    func start() throws {
        let timer = try RunLoopTimer.scheduled(
            interval: 60, repeats: true, target: self, label: "tick", graph: testingGraph
        ) { _, _ in }
        timer.recordHeld(by: self, property: "timer", ownership: .strong)
        self.timer = timer
    }

    /// Seed S5a: invalidates the timer, which lets go of the screen.
    func stop() {
        timer?.invalidate()
    }
}

/// Keeps planted timers so a test can invalidate them after its leak was observed, leaving
/// nothing behind for other tests.
final class PlantedTimers: @unchecked Sendable {
    private let lock = NSLock()
    private var timers: [RunLoopTimer] = []

    func keep(_ timer: RunLoopTimer?) {
        guard let timer else { return }
        lock.lock()
        timers.append(timer)
        lock.unlock()
    }

    func invalidateAll() {
        lock.lock()
        let all = timers
        timers.removeAll()
        lock.unlock()
        for timer in all { timer.invalidate() }
    }
}
