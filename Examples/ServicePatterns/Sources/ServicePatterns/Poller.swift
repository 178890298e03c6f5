import Foundation

/// Polls a source every `interval` from a `Task` loop.
public final class Poller: @unchecked Sendable {
    private var task: Task<Void, Never>?
    private let lock = NSLock()
    private var polls = 0

    /// Creates a poller; ``start(interval:)`` starts it.
    public init() {}

    /// Starts the polling loop.
    public func start(interval: Duration = .seconds(60)) {
        task = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                self.poll()
            }
        }
    }

    /// Stops polling: cancels the task, which ends its loop and lets go of the poller.
    public func stop() {
        task?.cancel()
    }

    func poll() { lock.withLock { polls += 1 } }
}
