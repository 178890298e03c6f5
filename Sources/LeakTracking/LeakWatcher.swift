import Foundation
import Locking
import RetainGraph
import RetainGraphUtilities

/// Watches objects that are expected to die, and says what became of them.
///
/// Call ``expectDeallocation(of:within:reason:label:fileID:filePath:line:column:)`` when an object should be gone soon (a
/// screen closed, a session ended, a test finished). The watcher keeps only a weak reference.
/// When the grace period is over, ``verdicts()`` (or ``check()``) says whether the object died
/// (``Verdict/ok``), is kept by a root or a cycle (``Verdict/leak``, with a ``LeakReport``), is
/// held only until a one-shot timer fires (``Verdict/transient``), or died while a repeating
/// timer that called it keeps firing into nothing (``Verdict/zombie``).
///
/// ```swift
/// let watcher = LeakWatcher.current
/// watcher.expectDeallocation(of: screen, within: .seconds(2), reason: "screen closed")
/// // … later, or in a test's teardown:
/// for verdict in watcher.check() where verdict.verdict.isProblem {
///     print(verdict.report?.text ?? verdict.summary)
/// }
/// ```
///
/// A watcher never keeps anything alive, and every method may be called from any thread.
/// Its sinks are called outside its lock.
public final class LeakWatcher: Sendable {
    /// The process-wide watcher: records into ``/RetainGraph/LiveGraph/shared``, reads the system
    /// clock, and gives five seconds of grace by default.
    public static let shared = LeakWatcher()

    /// The watcher the current task uses: ``shared`` unless a scope set another.
    ///
    /// Test helpers bind a fresh watcher for each test, so one test's watches never leak into
    /// the next:
    ///
    /// ```swift
    /// try await LeakWatcher.$current.withValue(LeakWatcher(defaultGrace: .milliseconds(50))) {
    ///     try await body()
    /// }
    /// ```
    @TaskLocal public static var current: LeakWatcher = .shared

    /// The graph whose references explain a leak.
    public let graph: LiveGraph
    /// The clock deadlines are measured with.
    public let clock: any WatchClock
    /// The grace period of a watch that does not give one.
    public let defaultGrace: Duration
    /// Leaks that are reported but accepted.
    public let knownLeaks: [KnownLeak]
    /// The discoverers run on each snapshot before it is analysed.
    public let discovery: ReferenceDiscovery
    let state = Locked(State())

    struct State {
        var watches: [WatchID: Watch] = [:]
        /// The watch of each watched object, by identity (checked against the watch's weak
        /// reference, since a dead object's address can be reused).
        var watchByObject: [ObjectIdentifier: WatchID] = [:]
        var nextWatch: UInt64 = 1
        var sinks: [any LeakReportSink] = []
        /// Reports sent to sinks, by fingerprint, with their counts; `order` keeps first sight.
        var reported: [String: LeakReport] = [:]
        var order: [String] = []

        /// Forgets a watch and its object's entry.
        mutating func removeWatch(_ id: WatchID) {
            guard let watch = watches.removeValue(forKey: id) else { return }
            if watchByObject[watch.key] == id { watchByObject.removeValue(forKey: watch.key) }
        }
    }

    /// Creates a watcher.
    ///
    /// - Parameters:
    ///   - graph: The graph to explain leaks with; ``/RetainGraph/LiveGraph/shared`` by default.
    ///   - clock: The clock; the system clock by default, a ``ManualWatchClock`` in tests.
    ///   - defaultGrace: The grace period of watches that give none.
    ///   - knownLeaks: Leaks to accept (reported, but not failures).
    ///   - sinks: Where ``check()`` sends new leak reports.
    ///   - discovery: The discoverers that add undeclared references to each snapshot before
    ///     it is analysed. By default, whatever `DiscoveryRegistry.shared` holds
    ///     at each check (a started heap census, for instance); `.reflection` (from
    ///     ReferenceReflection) adds reading the watched objects' memory; `.none` uses the
    ///     declared graph only.
    public init(
        graph: LiveGraph = .shared, clock: any WatchClock = SystemWatchClock(),
        defaultGrace: Duration = .seconds(5), knownLeaks: [KnownLeak] = [],
        sinks: [any LeakReportSink] = [], discovery: ReferenceDiscovery = .registered
    ) {
        self.graph = graph
        self.clock = clock
        self.defaultGrace = defaultGrace
        self.knownLeaks = knownLeaks
        self.discovery = discovery
        state.withLock { $0.sinks = sinks }
    }

    /// The sinks ``check()`` and ``deliver(_:)`` send reports to, in the order added.
    public var sinks: [any LeakReportSink] { state.withLock { $0.sinks } }

    /// Adds a sink for the reports ``check()`` finds from now on.
    ///
    /// - Parameter sink: The sink.
    public func addSink(_ sink: any LeakReportSink) {
        state.withLock { $0.sinks.append(sink) }
    }

    /// Records that `object` should die within `grace`.
    ///
    /// The watcher keeps a weak reference only, registers the object in the graph if it is not
    /// there yet (so a report can name it), and remembers which timers called it through a
    /// target, a proxy, a wrapper or a closure, to recognise a zombie timer once it has died.
    ///
    /// One object is one watch: calling this again for an object already watched (and alive)
    /// returns the same ``WatchID``, adds the new reason to the report (reasons are joined with
    /// `; `), and keeps the earlier of the two deadlines. The object is judged, and reported,
    /// once.
    ///
    /// ```swift
    /// watcher.expectDeallocation(of: owner, within: .seconds(1), reason: "owner closed")
    /// watcher.expectDeallocation(of: owner, reason: "session ended")   // same watch
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object expected to die.
    ///   - grace: How long it may take; ``defaultGrace`` when `nil`.
    ///   - reason: Why it should die, printed in the report.
    ///   - label: A name for reports, when the graph has none (the first call's label wins).
    ///   - fileID: Where the call is (the first call's location is the watch's
    ///     ``WatchVerdict/location``); leave the defaults, which are the caller's.
    ///   - filePath: The call's file path.
    ///   - line: The call's line.
    ///   - column: The call's column.
    /// - Returns: The watch's identity.
    /// - Complexity: A scoped snapshot of the nodes within three references of `object`, to
    ///   find the upstream timers; its size, not the graph's, decides the cost.
    @discardableResult
    public func expectDeallocation(
        of object: AnyObject, within grace: Duration? = nil, reason: String,
        label: String? = nil, fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) -> WatchID {
        let location = WatchLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let grace = grace ?? defaultGrace
        let now = clock.now
        let known = graph.id(of: object)
        let objectID = known ?? registeredID(of: object, label: label)
        var upstream: [ObjectID] = []
        if let objectID, graph.isEnabled {
            let nearby = graph.snapshot(
                .holders(of: [objectID], within: TimerChains.maximumHops))
            upstream = TimerChains.upstreamTimers(of: objectID, in: nearby)
        }
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        let typeName = String(reflecting: type(of: object))
        let key = ObjectIdentifier(object)
        let reference = WeakReference(object)
        return state.withLock { state in
            if let existing = state.watchByObject[key], let watch = state.watches[existing],
                watch.reference.object === object
            {
                state.watches[existing] = watch.merging(
                    reason: reason, grace: grace, now: now, upstreamTimers: upstream)
                return existing
            }
            let id = WatchID(rawValue: state.nextWatch)
            state.nextWatch += 1
            state.watches[id] = Watch(
                id: id, reference: reference, key: key, objectID: objectID, typeName: typeName,
                label: label, address: address, reasons: [reason], location: location,
                grace: grace,
                expectedAt: now, deadline: now.addingTimeInterval(grace.seconds),
                upstreamTimers: upstream)
            state.watchByObject[key] = id
            return id
        }
    }

    private func registeredID(of object: AnyObject, label: String?) -> ObjectID? {
        let id = graph.register(object, label: label)
        return id == .disabled ? nil : id
    }

    /// The number of watches not yet forgotten.
    public var watchCount: Int { state.withLock { $0.watches.count } }

    /// The earliest deadline among the watches, if any.
    public var nextDeadline: Date? {
        state.withLock { $0.watches.values.map(\.deadline).min() }
    }

    /// Forgets one watch.
    ///
    /// - Parameter id: The watch.
    public func forget(_ id: WatchID) {
        state.withLock { $0.removeWatch(id) }
    }

    /// Forgets every watch and every report seen so far. Sinks stay.
    public func removeAll() {
        state.withLock { state in
            state.watches.removeAll()
            state.watchByObject.removeAll()
            state.reported.removeAll()
            state.order.removeAll()
        }
    }

    /// The leak and zombie reports ``check()`` has found so far, one per fingerprint in the
    /// order first seen, each with ``LeakReport/occurrences`` counting its sightings.
    public var reports: [LeakReport] {
        state.withLock { state in state.order.compactMap { state.reported[$0] } }
    }

    func allowance(for report: LeakReport?) -> KnownLeak? {
        guard let report else { return nil }
        return knownLeaks.first { $0.matches(report) }
    }
}
