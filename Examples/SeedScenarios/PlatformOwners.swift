import Dispatch
import Foundation

// Owners that leak through the platform's own primitives, written as apps write them: no
// RetainGraph type anywhere. Each `start(fixed:)` has the leaking form and the usual fix.

/// Refreshes itself with a plain `Foundation.Timer`.
public final class TimerRefresher: @unchecked Sendable {
    var timer: Timer?
    /// Starts the timer; the fixed form captures `[weak self]`.
    public func start(fixed: Bool) {
        timer =
            fixed
            ? Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { [weak self] _ in
                self?.refresh()
            }
            : Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { _ in self.refresh() }
    }
    /// Stops the timer.
    public func stop() { timer?.invalidate() }
    func refresh() {}
}

/// Refreshes itself with a `DispatchSourceTimer`.
public final class DispatchRefresher: @unchecked Sendable {
    var source: DispatchSourceTimer?
    /// Starts the source; the fixed form captures `[weak self]` and cancels in `deinit`.
    public func start(fixed: Bool) {
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "refresher"))
        source.schedule(deadline: .now() + 3600, repeating: 3600)
        if fixed {
            source.setEventHandler { [weak self] in self?.refresh() }
        } else {
            source.setEventHandler { self.refresh() }
        }
        source.activate()
        self.source = source
    }
    /// Cancels the source.
    public func stop() { source?.cancel() }
    func refresh() {}
    deinit { source?.cancel() }
}

/// Refreshes itself from a `Task` sleep loop.
public final class TaskRefresher: @unchecked Sendable {
    var task: Task<Void, Never>?
    /// Starts the loop; the fixed form captures `[weak self]` for each turn.
    public func start(fixed: Bool) {
        task =
            fixed
            ? Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(3600))
                    self?.refresh()
                }
            }
            : Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(3600))
                    self.refresh()
                }
            }
    }
    /// Cancels the task.
    public func stop() { task?.cancel() }
    func refresh() {}
    deinit { task?.cancel() }
}

/// Listens with a NotificationCenter block observer.
public final class NotificationListener: @unchecked Sendable {
    var token: NSObjectProtocol?
    /// Observes; the fixed form captures `[weak self]` and removes the observer in `deinit`.
    public func start(fixed: Bool) {
        let name = Notification.Name("PlatformOwners.refresh")
        token =
            fixed
            ? NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) {
                [weak self] _ in self?.refresh()
            }
            : NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) {
                _ in self.refresh()
            }
    }
    /// Removes the observer.
    public func stop() { token.map(NotificationCenter.default.removeObserver) }
    func refresh() {}
    deinit { token.map(NotificationCenter.default.removeObserver) }
}

/// A session an app keeps in a global cache.
public final class CachedSession: @unchecked Sendable {
    /// Creates a session.
    public init() {}
}

/// A global cache, as apps keep them; the fixed form removes the session when it closes.
nonisolated(unsafe) public var sessionCache: [CachedSession] = []
