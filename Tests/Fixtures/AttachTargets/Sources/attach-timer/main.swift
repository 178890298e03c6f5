// A `Foundation.Timer` scheduled on the main run loop whose block captures its owner: the
// owner is dropped, but the run loop fires the timer, and the timer's block holds the owner.
import Foundation
import FixtureSupport

final class TimerOwner: @unchecked Sendable {
    var ticks = 0
    var timer: Timer?

    func start() {
        timer = Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { _ in
            self.ticks += 1
        }
    }
}

do {
    let owner = TimerOwner()
    owner.start()
}
announceReady()
runForever()
