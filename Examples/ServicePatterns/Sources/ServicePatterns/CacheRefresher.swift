import Foundation

/// Refreshes a cache every `interval` seconds from a plain `Foundation.Timer` scheduled on a
/// background thread's run loop.
public final class CacheRefresher: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var timer: Timer?
    private var entries: [String: String] = [:]

    /// Whether the refresher's block should capture it weakly (the fix on Linux, where a
    /// Foundation.Timer keeps its block, and what the block captures, for ever).
    private let capturesWeakly: Bool

    /// Creates a refresher whose timer block captures it weakly (the fix) or strongly.
    public init(capturesWeakly: Bool = true) {
        self.capturesWeakly = capturesWeakly
    }

    /// Starts the background thread and its timer; returns once the timer is scheduled.
    public func start(interval: TimeInterval = 300) {
        let scheduled = DispatchSemaphore(value: 0)
        let thread = Thread { [weak self] in
            guard let self else { return }
            let timer: Timer
            if self.capturesWeakly {
                timer = Timer.scheduledTimer(withTimeInterval: interval, repeats: true) {
                    [weak self] _ in self?.refresh()
                }
            } else {
                timer = Timer.scheduledTimer(withTimeInterval: interval, repeats: true) { _ in
                    self.refresh()
                }
            }
            self.lock.withLock { self.timer = timer }
            scheduled.signal()
            Self.runLoop(until: self)
        }
        thread.name = "cache-refresher"
        thread.start()
        scheduled.wait()
    }

    /// Runs the thread's run loop in short slices until the refresher stops or goes away.
    private static func runLoop(until refresher: CacheRefresher) {
        weak let refresher = refresher
        while let current = refresher, !current.isStopped {
            _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.05))
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Stops refreshing: invalidates the timer and lets the thread end.
    public func stop() {
        lock.withLock {
            stopped = true
            timer?.invalidate()
        }
    }

    func refresh() {
        lock.withLock { entries["refreshed"] = "\(Date())" }
    }
}
