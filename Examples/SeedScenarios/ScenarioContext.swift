import Foundation
import LeakTracking
import ReferenceReflection
import RetainGraph

/// What a running ``Scenario`` works with: a private graph, a watcher that discovers undeclared
/// references with the library's ``ReferenceReflection/ReflectionDiscoverer``, and the clean-up
/// to do once the verdict is in.
///
/// Each scenario gets its own context, so scenarios never see each other's objects, timers or
/// reports, even though they share the main run loop.
///
/// ```swift
/// var owner: ClockViewController? = ClockViewController(graph: context.graph)
/// try owner?.startTimer()
/// context.close(&owner, reason: "ClockViewController popped")
/// return try context.settle()
/// ```
public final class ScenarioContext: @unchecked Sendable {
    /// The graph this scenario's timers record into.
    public let graph = LiveGraph()
    /// The grace period given to closed owners.
    public let grace: Duration
    /// Discovers undeclared references for the watcher (the library's, as any user gets it
    /// from `.reflection`; kept here only so S18a can name a registry's timer to walk).
    public let reflection = ReflectionDiscoverer()
    /// The watcher judging this scenario's owners.
    public let watcher: LeakWatcher
    private var cleanups: [() -> Void] = []

    /// Errors a scenario can end with instead of a verdict.
    public enum Failure: Error, CustomStringConvertible {
        /// The watcher returned no verdict (nothing was watched).
        case noVerdict
        /// A condition the scenario waited for never held.
        case timedOut(String)

        /// What went wrong, in a few words.
        public var description: String {
            switch self {
            case .noVerdict: return "no verdict"
            case .timedOut(let what): return "timed out waiting for \(what)"
            }
        }
    }

    /// Creates a context whose watches get `grace`.
    ///
    /// - Parameter grace: The grace period of each watch.
    public init(grace: Duration) {
        self.grace = grace
        watcher = LeakWatcher(
            graph: graph, defaultGrace: grace, discovery: .registered.addingReflection(reflection))
    }

    /// "Closes" an owner: watches it, then drops the caller's reference to it.
    ///
    /// - Parameters:
    ///   - owner: The variable holding the owner; set to `nil`.
    ///   - reason: Why it should die now (printed in reports).
    public func close<Owner: AnyObject>(_ owner: inout Owner?, reason: String) {
        guard let object = owner else { return }
        watcher.expectDeallocation(of: object, within: grace, reason: reason)
        owner = nil
    }

    /// Runs `body` after the verdict, to undo a leak made on purpose.
    ///
    /// - Parameter body: The clean-up; runs on the thread that ran the scenario.
    public func atCleanup(_ body: @escaping () -> Void) {
        cleanups.append(body)
    }

    /// Runs `body` on `object` after the verdict, if it is still alive then (weakly held).
    ///
    /// ```swift
    /// context.atCleanup(of: owner) { $0.stop() }   // invalidate a leaked timer
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object to clean up; `nil` does nothing.
    ///   - body: The clean-up.
    public func atCleanup<Object: AnyObject>(of object: Object?, _ body: @escaping (Object) -> Void)
    {
        guard let object else { return }
        atCleanup { [weak object] in
            if let object { body(object) }
        }
    }

    /// Drives the current run loop until `condition` holds.
    ///
    /// - Parameters:
    ///   - what: What is awaited, for the error.
    ///   - timeout: The longest wait.
    ///   - condition: Checked between short run-loop slices.
    /// - Throws: ``Failure/timedOut(_:)``.
    public func drive(
        until what: String, timeout: Duration = .seconds(20), _ condition: () -> Bool
    ) throws {
        guard LeakWatcher.drainRunLoop(timeout: timeout, until: condition) else {
            throw Failure.timedOut(what)
        }
    }

    /// Drives the current run loop until the watch settles (the owner died, or its grace is
    /// over and nothing pending will release it), and returns the verdict.
    ///
    /// - Returns: The verdict on the (only) watched owner.
    /// - Throws: ``Failure/noVerdict`` when nothing was watched.
    public func settle() throws -> WatchVerdict {
        guard let verdict = watcher.settle(timeout: .seconds(20)).first else {
            throw Failure.noVerdict
        }
        return verdict
    }

    /// Drives the current run loop until the grace period is over, then returns the verdict at
    /// once, without waiting for pending one-shot timers (S2a: checked before the fire).
    ///
    /// - Returns: The verdict on the (only) watched owner.
    /// - Throws: ``Failure/noVerdict`` when nothing was watched.
    public func verdictAfterGrace() throws -> WatchVerdict {
        let deadline = watcher.nextDeadline ?? Date()
        try drive(until: "the grace period to end") { Date() > deadline }
        guard let verdict = watcher.verdicts().first else { throw Failure.noVerdict }
        return verdict
    }

    func cleanUp() {
        let pending = cleanups
        cleanups.removeAll()
        for cleanup in pending.reversed() { cleanup() }
    }
}
