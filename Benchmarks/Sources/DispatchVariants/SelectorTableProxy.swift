import BenchmarkSupport

/// A string-keyed "selector table" proxy that imitates Objective-C message forwarding in Swift.
///
/// An `NSProxy` handles a timer's `-tick` in two lookups: its own method cache misses, so the
/// runtime forwards, and the proxy looks the selector up on its (weakly held) target. This type
/// does the same with dictionaries keyed by method name: a miss in its own table, a weak load,
/// and a hit in the target type's table. It is what "forwarding by name" costs without the
/// Objective-C runtime's `NSInvocation` machinery.
///
/// ```swift
/// let proxy = SelectorTableProxy(target: ticker)
/// proxy.send("tick")  // ticker.tick()
/// ```
public final class SelectorTableProxy {
    /// The target's methods by name, like a class's method list.
    public typealias MethodTable = [String: (Ticker) -> Void]

    /// The object messages go to; `nil` once it died.
    public weak var target: Ticker?
    private let ownMethods: [String: (SelectorTableProxy) -> Void]
    private let targetMethods: MethodTable

    /// Creates a proxy for `target`, holding it weakly.
    ///
    /// - Parameter target: Where messages go.
    public init(target: Ticker) {
        self.target = target
        // A few methods of the proxy's own, as NSProxy has (none of them is `tick`).
        ownMethods = [
            "class": { _ in }, "description": { _ in }, "isProxy": { _ in },
            "respondsToSelector:": { _ in },
        ]
        targetMethods = [
            "tick": { $0.tick() }, "description": { _ in }, "hash": { _ in },
            "isEqual:": { _ in }, "init": { _ in }, "dealloc": { _ in },
        ]
    }

    /// Sends the message named `selector`: the proxy's own table first, then the target's.
    ///
    /// - Parameter selector: A method name, e.g. `"tick"`.
    /// - Returns: Whether some method handled the message.
    /// - Complexity: Two dictionary lookups (each hashes `selector`) and one weak load.
    @inline(never)
    @discardableResult
    public func send(_ selector: String) -> Bool {
        if let own = ownMethods[selector] {
            own(self)
            return true
        }
        // Forwarding: does the target respond (methodSignatureForSelector:), then call it
        // (forwardInvocation:).
        guard let target, let method = targetMethods[selector] else { return false }
        method(target)
        return true
    }
}
