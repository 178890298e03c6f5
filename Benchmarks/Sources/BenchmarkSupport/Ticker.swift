/// The callee every dispatch benchmark ends in: one counter increment behind a call that the
/// optimiser may not inline.
///
/// It lives in a module of its own so that every variant in `DispatchVariants` calls across a
/// module boundary, as an app's timer calls into the app's own types. The Objective-C peer's
/// `-[PeerTarget tick]` does the same work.
///
/// ```swift
/// let ticker = Ticker()
/// ticker.tick()
/// assert(ticker.count == 1)
/// ```
///
/// It is `@unchecked Sendable` so that `@Sendable` timer actions can capture it; the count is
/// not synchronised: tick one ticker from one thread at a time.
public final class Ticker: Tickable, @unchecked Sendable {
    // A raw cell rather than a stored `var`: a class's stored property pays a dynamic
    // exclusivity check (swift_beginAccess/endAccess, ~40 instructions) on every write, which
    // would swamp the dispatch costs being compared; the Objective-C peer's `count++` has none.
    private let cell: UnsafeMutablePointer<Int>

    /// How many times ``tick()`` ran.
    public var count: Int { cell.pointee }

    /// Creates a ticker whose count is zero.
    public init() {
        cell = .allocate(capacity: 1)
        cell.initialize(to: 0)
    }

    deinit {
        cell.deallocate()
    }

    /// Adds one to ``count``; never inlined, so each call is a real call.
    ///
    /// - Complexity: O(1).
    @inline(never)
    public func tick() {
        cell.pointee &+= 1
    }
}

/// What a forwarding proxy looks for in its targets ("responds to `tick`"): ``Ticker`` conforms.
public protocol Tickable: AnyObject {
    /// One timer fire's work.
    func tick()
}

/// An object that is not ``Tickable``: a forwarding proxy's other targets, tried and skipped.
public final class Bystander {
    /// Creates a bystander.
    public init() {}
}
