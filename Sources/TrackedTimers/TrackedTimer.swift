import RetainGraph

/// What every instrumented timer kind has in common: it can be invalidated from any thread,
/// says whether it is still valid, and lets the object that stores it declare so.
///
/// Declaring the owner records `owner ⇒ timer` (role `.storedProperty(name:)`) in the graph the
/// timer records into, which is what turns "a timer holds its owner" into the cycle a report
/// shows. Without the declaration the graph still sees the root path.
///
/// ```swift
/// final class Clock {
///     var timer: DispatchTimer?
///     func start() throws {
///         timer = try DispatchTimer(interval: 1, repeats: true) { _ in }
///             .held(by: self, as: "timer")
///     }
/// }
/// ```
public protocol TrackedTimer: AnyObject, Sendable {
    /// Whether the timer can still fire (it was not invalidated and did not stop by itself).
    var isValid: Bool { get }

    /// Stops the timer for good and releases its target and action. Safe to call more than
    /// once and from any thread.
    func invalidate()

    /// Records that `owner` holds this timer in the stored property named `property`.
    ///
    /// - Parameters:
    ///   - owner: The object storing the timer. Not retained by the timer or the graph.
    ///   - property: The property's name, printed in reports (`.timer`).
    ///   - ownership: How the property holds the timer (`.strong` unless it is `weak var`).
    func recordHeld(by owner: AnyObject, property: String, ownership: Ownership)
}

extension TrackedTimer {
    /// Declares that `owner` holds this timer strongly (or with `ownership`) in `property`, and
    /// returns the timer, so the declaration fits in the assignment.
    ///
    /// - Parameters:
    ///   - owner: The object storing the timer.
    ///   - property: The stored property's name.
    ///   - ownership: How the property holds the timer; `.strong` by default.
    /// - Returns: `self`.
    @discardableResult
    public func held(by owner: AnyObject, as property: String, ownership: Ownership = .strong)
        -> Self
    {
        recordHeld(by: owner, property: property, ownership: ownership)
        return self
    }

    /// Declares that `owner` holds this timer in `property` (the label of earlier versions).
    @available(*, deprecated, renamed: "held(by:as:ownership:)")
    @discardableResult
    public func held(by owner: AnyObject, as property: String, kind: Ownership) -> Self {
        held(by: owner, as: property, ownership: kind)
    }
}
