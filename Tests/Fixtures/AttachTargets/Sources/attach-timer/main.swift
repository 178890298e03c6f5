import FixtureSupport
// A `Foundation.Timer` scheduled on the main run loop whose block captures its owner: the
// owner is dropped, but the run loop fires the timer, and the timer's block holds the owner.
// A second owner invalidates its timer: corelibs Foundation never frees a Timer, so that owner
// stays too, held by a timer that is no longer valid.
import Foundation

final class TimerOwner: @unchecked Sendable {
    var ticks = 0
    var timer: Timer?

    func start() {
        timer = Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { _ in
            self.ticks += 1
        }
    }
}

final class StoppedTimerOwner: @unchecked Sendable {
    var ticks = 0

    func startAndStop() {
        let timer = Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { _ in
            self.ticks += 1
        }
        timer.invalidate()
    }
}

do {
    TimerOwner().start()
    StoppedTimerOwner().startAndStop()
}
announceReady()
runForever()
