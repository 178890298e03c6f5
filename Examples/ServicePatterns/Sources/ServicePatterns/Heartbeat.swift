import Dispatch

/// Sends a heartbeat from a `DispatchSourceTimer`.
public final class Heartbeat: @unchecked Sendable {
    private var source: DispatchSourceTimer?
    private(set) var beats = 0

    /// Creates a heartbeat; ``start(interval:)`` starts it.
    public init() {}

    /// Starts the timer source.
    public func start(interval: DispatchTimeInterval = .seconds(30)) {
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "heartbeat"))
        source.schedule(deadline: .now() + interval, repeating: interval)
        source.setEventHandler { self.beat() }
        source.activate()
        self.source = source
    }

    /// Stops beating: a cancelled source releases its handler.
    public func stop() {
        source?.cancel()
    }

    func beat() { beats += 1 }
}
