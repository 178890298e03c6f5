import Foundation
import RetainGraph

/// What became of an object that was expected to die.
///
/// The raw values are the words printed in tables and written in JSON reports.
public enum Verdict: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// It died, and nothing it set in motion outlived it.
    case ok = "OK"
    /// It is alive after its grace period, held by a root path, a cycle, or something unknown.
    case leak = "LEAK"
    /// It is alive after its grace period, but only because a scheduled one-shot timer still
    /// holds it; it will be released when that timer fires (seed S2a).
    case transient = "TRANSIENT"
    /// It died, but a repeating timer that called it is still scheduled and fires into nothing
    /// (seed S11b).
    case zombie = "ZOMBIE"
    /// It is alive and its grace period is not over yet.
    case pending = "PENDING"

    /// The verdict's word, such as `LEAK`.
    public var description: String { rawValue }

    /// Whether the verdict is final: the watch can be forgotten once it is reached.
    ///
    /// ``pending`` and ``transient`` can still change; every other verdict is final.
    public var isFinal: Bool {
        switch self {
        case .ok, .leak, .zombie: return true
        case .pending, .transient: return false
        }
    }

    /// Whether the verdict is a problem worth a report (``leak`` or ``zombie``).
    public var isProblem: Bool { self == .leak || self == .zombie }
}

/// The identity of one watched object: what ``LeakWatcher/expectDeallocation(of:within:reason:label:fileID:filePath:line:column:)``
/// returns (the same identity for every call about the same living object).
public struct WatchID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// A number unique within the watcher that made it.
    public let rawValue: UInt64

    /// Wraps a raw value.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Orders watches by when they were made.
    public static func < (lhs: WatchID, rhs: WatchID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `watch` and the number, as reports print it.
    public var description: String { "watch \(rawValue)" }
}

/// The verdict on one watched object, with the evidence behind it.
///
/// ```swift
/// for result in watcher.verdicts() where result.verdict == .leak {
///     print(result.report?.text ?? result.summary)
/// }
/// ```
public struct WatchVerdict: Sendable {
    /// The watch this verdict is about.
    public let watch: WatchID
    /// The verdict.
    public let verdict: Verdict
    /// The watched object's fully qualified type name.
    public let typeName: String
    /// The label given to the watch or recorded in the graph, if any.
    public let label: String?
    /// Why the object was expected to die: every reason given for it, joined with `; `.
    public var reason: String { reasons.joined(separator: "; ") }
    /// Every reason given for the object, in the order the calls were made.
    public let reasons: [String]
    /// Where the (first) `expectDeallocation` call about the object is.
    public let location: WatchLocation
    /// When the object was first expected to die (the watch started).
    public let expectedAt: Date
    /// When its grace period ends.
    public let deadline: Date
    /// The object's node in the graph, if it was recorded.
    public let objectID: ObjectID?
    /// For ``Verdict/transient``: when the last one-shot timer holding it is due to fire.
    public let releaseDate: Date?
    /// For ``Verdict/leak``, ``Verdict/zombie`` and ``Verdict/transient``: the full report.
    public package(set) var report: LeakReport?
    /// The known leak that allows this one, if any: the leak is still reported but does not
    /// fail a test.
    public let allowance: KnownLeak?
    /// For a verdict with a report, the whole heap the check read when a discoverer read one
    /// (the heap census): the snapshot the report's retained figures come from, which test
    /// helpers write out as a `.heapsnapshot` file. `nil` otherwise. It holds the whole heap's
    /// graph: keep the verdict only as long as you need the heap (the report alone is small).
    public internal(set) var discoveredHeap: DiscoveredHeap? = nil

    /// Whether the verdict is a problem that no ``KnownLeak`` allows.
    public var isUnexpectedProblem: Bool { verdict.isProblem && allowance == nil }

    /// A one-line explanation, as the demo's verdict table prints it.
    ///
    /// For example `strong target: run loop ⇒ RunLoopTimer ⇒ Owner ⇒ RunLoopTimer` for a leak,
    /// `died` for OK, and for a transient `one-shot timer pending, fires in 9.9 s (at
    /// 2026-11-23T16:00:11.900Z): run loop ⇒ RunLoopTimer ⇒ Owner`.
    public var summary: String {
        switch verdict {
        case .ok: return "died"
        case .pending: return "grace period not over"
        case .leak, .zombie, .transient: return report?.summary ?? verdict.rawValue
        }
    }
}
