import BenchmarkSupport

/// Scenario S9: an ordinary object, not a proxy, that holds its target weakly and forwards
/// each fire to it.
///
/// The timer holds the forwarder strongly and the forwarder holds the ``Ticker`` weakly, so the
/// owner can die; every fire pays one weak load (`swift_weakLoadStrong` and a release).
///
/// ```swift
/// let forwarder = IntermediateForwarder(target: ticker)
/// forwarder.fire()  // ticker.tick(), or nothing once the ticker died
/// ```
public final class IntermediateForwarder {
    /// The object fires go to; `nil` once it died.
    public weak var target: Ticker?

    /// Creates a forwarder that holds `target` weakly.
    ///
    /// - Parameter target: Where fires go.
    public init(target: Ticker) {
        self.target = target
    }

    /// Forwards one fire: calls `target.tick()` if the target is alive.
    ///
    /// - Returns: Whether the target was alive.
    /// - Complexity: O(1): one weak load, one call.
    @inline(never)
    @discardableResult
    public func fire() -> Bool {
        guard let target else { return false }
        target.tick()
        return true
    }
}
