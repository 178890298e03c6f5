import BenchmarkSupport
import RetainGraph
import TrackedTimers

/// The objects one ``DispatchVariant`` needs, built once, and its fire loop.
///
/// Only the chosen variant's objects are built: a weak reference gives its target a side
/// table, after which every retain and release of the target takes the runtime's slow path, so
/// a variant without weak references must not be measured next to one that has them.
/// Build the fixture outside the measured region; ``run(times:)`` then performs exactly `times`
/// fires and allocates nothing of its own, so a benchmark's malloc count is the variant's.
///
/// ```swift
/// let fixture = DispatchFixture(.direct)
/// fixture.run(times: 1_000)
/// assert(fixture.ticker.count == 1_000)
/// ```
public final class DispatchFixture {
    /// The variant this fixture fires.
    public let variant: DispatchVariant
    /// The target; the fixture keeps it alive, so every weak reference finds it.
    public let ticker: Ticker
    private let dispatcher: Dispatcher
    // Keeps a forwarding proxy's weakly held other targets alive.
    private let bystanders: [Bystander]

    private enum Dispatcher {
        case direct
        case closure(() -> Void)
        case forwarder(IntermediateForwarder)
        case selectorTable(SelectorTableProxy)
        case weakProxy(WeakProxy<Ticker>)
        case forwardingProxy(ForwardingProxy)
    }

    /// Builds the target and the dispatch objects `variant` needs.
    ///
    /// - Parameter variant: The dispatch path to fire.
    public init(_ variant: DispatchVariant) {
        let ticker = Ticker()
        self.variant = variant
        self.ticker = ticker
        let bystanders = [Bystander(), Bystander()]
        self.bystanders = bystanders
        dispatcher = Self.makeDispatcher(variant, ticker, bystanders)
    }

    private static func makeDispatcher(
        _ variant: DispatchVariant, _ ticker: Ticker, _ bystanders: [Bystander]
    ) -> Dispatcher {
        switch variant {
        case .direct:
            return .direct
        case .closure:
            return .closure { ticker.tick() }
        case .closureWeakSelf:
            return .closure { [weak ticker] in ticker?.tick() }
        case .closureUnowned:
            return .closure { [unowned ticker] in ticker.tick() }
        case .closureUnownedUnsafe:
            return .closure { [unowned(unsafe) ticker] in ticker.tick() }
        case .intermediateForwarder:
            return .forwarder(IntermediateForwarder(target: ticker))
        case .intermediateForwarderClosure:
            let forwarder = IntermediateForwarder(target: ticker)
            return .closure { forwarder.fire() }
        case .selectorTable:
            return .selectorTable(SelectorTableProxy(target: ticker))
        case .weakProxyForward, .weakProxyWithTarget, .weakProxyTarget:
            // Tracking records at creation only; a disabled private graph keeps the shared one
            // clean.
            return .weakProxy(WeakProxy(ticker, graph: LiveGraph(isEnabled: false)))
        case .weakProxyTimerAction:
            let proxy = WeakProxy(ticker, graph: LiveGraph(isEnabled: false))
            let action: (Ticker) -> Void = { $0.tick() }
            return .closure { proxy.forward { action($0) } }
        case .forwardingProxyOneWeak, .forwardingProxyOneStrong, .forwardingProxyThreeWeak,
            .forwardingProxyHooks:
            let proxy = ForwardingProxy(graph: LiveGraph(isEnabled: false))
            if variant == .forwardingProxyThreeWeak {
                for bystander in bystanders { proxy.addTarget(bystander, holding: .weak) }
            }
            proxy.addTarget(ticker, holding: variant == .forwardingProxyOneStrong ? .strong : .weak)
            if variant == .forwardingProxyHooks {
                proxy.hook("tick", before: { _, _ in }, after: { _, _ in })
            }
            return .forwardingProxy(proxy)
        }
    }

    /// Fires the variant `times` times.
    ///
    /// - Parameter times: How many fires.
    /// - Complexity: O(`times`).
    public func run(times: Int) {
        switch dispatcher {
        case .direct:
            Self.loop(times) { ticker.tick() }
        case .closure(let closure):
            Self.loop(times, closure)
        case .forwarder(let forwarder):
            Self.loop(times) { forwarder.fire() }
        case .selectorTable(let proxy):
            Self.loop(times) { proxy.send("tick") }
        case .weakProxy(let proxy):
            switch variant {
            case .weakProxyWithTarget: Self.loop(times) { proxy.withTarget { $0.tick() } }
            case .weakProxyTarget: Self.loop(times) { proxy.target?.tick() }
            default: Self.loop(times) { proxy.forward { $0.tick() } }
            }
        case .forwardingProxy(let proxy):
            Self.loop(times) { proxy.forward("tick", to: Tickable.self) { $0.tick() } }
        }
    }

    /// Calls `body` `times` times; `body` is the fire, called as an opaque closure only when it
    /// is a stored one (the others are specialised into the loop).
    @inline(__always)
    private static func loop(_ times: Int, _ body: () -> Void) {
        var remaining = times
        while remaining > 0 {
            body()
            remaining &-= 1
        }
    }
}
