import Foundation
import LeakTracking

/// The demo's second part: owners that leak through the platform's own primitives (no
/// RetainGraph type), explained by the heap census (`HeapCensus.start()` first).
///
/// ```swift
/// HeapCensus.start()
/// for scenario in PlatformScenarios.table { print(scenario.run().line) }
/// ```
public enum PlatformScenarios {
    /// Each primitive, leaking (`a`) then fixed (`b`).
    public static let table: [Scenario] =
        [
            owner("P1", "plain Foundation.Timer", TimerRefresher.init) { $0.start(fixed: $1) },
            owner("P2", "DispatchSourceTimer", DispatchRefresher.init) { $0.start(fixed: $1) },
            owner("P3", "Task sleep loop", TaskRefresher.init) { $0.start(fixed: $1) },
            owner("P4", "NotificationCenter block observer", NotificationListener.init) {
                $0.start(fixed: $1)
            },
        ].flatMap { $0 } + [globalCache(fixed: false), globalCache(fixed: true)]

    /// The leaking and fixed scenarios of one kind of owner.
    static func owner<Owner: AnyObject>(
        _ id: String, _ primitive: String, _ make: @escaping @Sendable () -> Owner,
        start: @escaping @Sendable (Owner, Bool) -> Void
    ) -> [Scenario] {
        [false, true].map { fixed in
            Scenario(
                id: id + (fixed ? "b" : "a"),
                title: fixed ? "\(primitive), [weak self]" : primitive,
                expected: fixed ? .ok : .leak
            ) { context in
                var owner: Owner? = make()
                if let owner { start(owner, fixed) }
                context.atCleanup(of: owner) { owner in
                    (owner as? TimerRefresher)?.stop()
                    (owner as? DispatchRefresher)?.stop()
                    (owner as? TaskRefresher)?.stop()
                    (owner as? NotificationListener)?.stop()
                }
                context.close(&owner, reason: "\(Owner.self) closed")
                return try context.settle()
            }
        }
    }

    /// A session kept in a global array; the fixed form removes it when it closes.
    static func globalCache(fixed: Bool) -> Scenario {
        Scenario(
            id: fixed ? "P5b" : "P5a",
            title: fixed ? "global cache, removed on close" : "global cache",
            expected: fixed ? .ok : .leak
        ) { context in
            var session: CachedSession? = CachedSession()
            if let session { sessionCache.append(session) }
            if fixed { sessionCache.removeAll { $0 === session } }
            context.atCleanup { sessionCache.removeAll() }
            context.close(&session, reason: "session closed")
            return try context.settle()
        }
    }
}
