import Foundation

/// A registry singleton holding closures by name.
public final class EventBus: @unchecked Sendable {
    /// The one bus.
    public static let shared = EventBus()
    private let lock = NSLock()
    private var handlers: [String: @Sendable () -> Void] = [:]

    /// Keeps `handler` under `name` until ``unregister(_:)``.
    public func register(_ name: String, handler: @escaping @Sendable () -> Void) {
        lock.withLock { handlers[name] = handler }
    }

    /// Drops the handler kept under `name`.
    public func unregister(_ name: String) {
        _ = lock.withLock { handlers.removeValue(forKey: name) }
    }
}

/// Subscribes to an event of the bus.
public final class Subscriber: @unchecked Sendable {
    /// The event it subscribes to.
    public let name: String
    private(set) var deliveries = 0

    /// Creates a subscriber of the event `name`.
    public init(name: String) { self.name = name }

    /// Registers its handler with the bus.
    public func start() {
        EventBus.shared.register(name) { self.deliver() }
    }

    /// Stops: the bus keeps the handler, and what it captures, until it is unregistered.
    public func stop() {
        EventBus.shared.unregister(name)
    }

    func deliver() { deliveries += 1 }
}
