import Foundation
import RetainGraph
import RetainGraphUtilities

/// A weak reference that can cross threads: Swift loads and clears weak references atomically.
final class WeakReference: @unchecked Sendable {
    weak var object: AnyObject?

    init(_ object: AnyObject) {
        self.object = object
    }

    var isAlive: Bool { object != nil }
}

/// One expected death: a weak reference and what the report needs once the object is gone.
///
/// One object has one watch, however many times it is watched: later calls add their reason
/// and may bring the deadline forward (see ``merging(reason:grace:now:upstreamTimers:)``).
struct Watch: Sendable {
    let id: WatchID
    let reference: WeakReference
    /// The watched object's identity, the key of the watcher's one-watch-per-object table.
    let key: ObjectIdentifier
    let objectID: ObjectID?
    let typeName: String
    let label: String?
    let address: UInt
    var reasons: [String]
    /// Where the first `expectDeallocation` call about the object is.
    let location: WatchLocation
    var grace: Duration
    let expectedAt: Date
    var deadline: Date
    /// Timers that called the object (through a target, proxy, wrapper or closure) when the
    /// watch started; re-examined for a zombie once the object has died.
    var upstreamTimers: [ObjectID]

    /// Every reason, joined for the report.
    var reason: String { reasons.joined(separator: "; ") }

    /// This watch after one more call about the same object: its reason is added (once), the
    /// earlier of the two deadlines wins (with its grace), and the upstream timers are merged.
    func merging(reason: String, grace: Duration, now: Date, upstreamTimers: [ObjectID]) -> Watch {
        var merged = self
        if !merged.reasons.contains(reason) { merged.reasons.append(reason) }
        let deadline = now.addingTimeInterval(grace.seconds)
        if deadline < merged.deadline {
            merged.deadline = deadline
            merged.grace = grace
        }
        for timer in upstreamTimers where !merged.upstreamTimers.contains(timer) {
            merged.upstreamTimers.append(timer)
        }
        return merged
    }

    func subject(now: Date) -> ReportSubject {
        ReportSubject(
            typeName: typeName, label: label, address: address, reason: reason,
            graceSeconds: grace.seconds,
            secondsPastDeadline: max(0, now.timeIntervalSince(deadline)),
            reportedAt: now.timeIntervalSince1970, location: location)
    }

    func verdict(
        _ verdict: Verdict, report: LeakReport? = nil, releaseDate: Date? = nil,
        allowance: KnownLeak? = nil
    ) -> WatchVerdict {
        WatchVerdict(
            watch: id, verdict: verdict, typeName: typeName, label: label, reasons: reasons,
            location: location,
            expectedAt: expectedAt, deadline: deadline, objectID: objectID,
            releaseDate: releaseDate, report: report, allowance: allowance)
    }
}
