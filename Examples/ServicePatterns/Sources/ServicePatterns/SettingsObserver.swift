import Foundation

/// Reloads settings when `settingsDidChange` is posted, through a NotificationCenter block
/// observer.
public final class SettingsObserver: @unchecked Sendable {
    /// Posted when the settings change.
    public static let settingsDidChange = Notification.Name("ServicePatterns.settingsDidChange")
    private var token: NSObjectProtocol?
    private(set) var reloads = 0

    /// Creates an observer; ``start()`` starts observing.
    public init() {}

    /// Adds the block observer to the default center.
    public func start() {
        token = NotificationCenter.default.addObserver(
            forName: Self.settingsDidChange, object: nil, queue: nil
        ) { _ in
            self.reload()
        }
    }

    /// Stops observing: the center keeps the block until the observer is removed.
    public func stop() {
        if let token { NotificationCenter.default.removeObserver(token) }
        token = nil
    }

    func reload() { reloads += 1 }
}
