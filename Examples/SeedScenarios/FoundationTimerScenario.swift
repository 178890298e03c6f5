import Foundation
import LeakTracking
import RetainGraph

/// A screen that uses a plain `Foundation.Timer`, with no RetainGraph instrumentation at all:
/// the block captures `self` strongly, as in way 2 of seed 000 without `__weak`.
///
/// Nothing records this timer in the graph. ReferenceReflection finds
/// `RawTimerViewController ⇒ .timer ⇒ Foundation.Timer ⇒ closure ⇒ RawTimerViewController`.
/// On Linux a `Foundation.Timer` is never freed and `invalidate()` does not release its block,
/// so this controller can never die, whatever `deinit` would have done.
public final class RawTimerViewController: @unchecked Sendable {
    /// The timer, held strongly.
    var timer: Timer?
    /// How many times the block ran.
    public private(set) var ticks = 0

    /// Creates a controller.
    public init() {}

    /// `Timer.scheduledTimer(withTimeInterval:repeats:block:)` on the current run loop.
    public func startTimer() {
        timer = Timer.scheduledTimer(withTimeInterval: 0.01, repeats: true) { _ in
            self.onTimerClock()
        }
    }

    /// What the block calls.
    public func onTimerClock() { ticks += 1 }

    /// Stops the timer (the block and this controller stay alive: see the type's discussion).
    public func stop() { timer?.invalidate() }

    deinit { timer?.invalidate() }
}

extension Scenario {
    /// FT: a plain Foundation timer whose block captures its owner strongly. Not a seed case
    /// id; shown after the table.
    static let foundationTimer = Scenario(
        id: "FT", title: "plain Foundation.Timer, block captures self strongly", expected: .leak
    ) { context in
        var owner: RawTimerViewController? = RawTimerViewController()
        owner?.startTimer()
        try context.drive(until: "the block to run") { (owner?.ticks ?? 0) >= 2 }
        context.atCleanup(of: owner) { $0.stop() }
        context.close(&owner, reason: "RawTimerViewController popped")
        return try context.settle()
    }
}
