import Foundation
import RetainGraph

/// A weak reference that can cross threads: Swift loads and clears weak references atomically.
final class WeakReference: @unchecked Sendable {
    weak var object: AnyObject?

    init(_ object: AnyObject) {
        self.object = object
    }

    var isAlive: Bool { object != nil }
}

/// One expected death: a weak reference and what the report needs once the object is gone.
struct Watch: Sendable {
    let id: WatchID
    let reference: WeakReference
    let objectID: ObjectID?
    let typeName: String
    let label: String?
    let address: UInt
    let reason: String
    let grace: Duration
    let expectedAt: Date
    let deadline: Date
    /// Timers that called the object (through a target, proxy, wrapper or closure) when the
    /// watch started; re-examined for a zombie once the object has died.
    let upstreamTimers: [ObjectID]

    func subject(now: Date) -> ReportSubject {
        ReportSubject(
            typeName: typeName, label: label, address: address, reason: reason,
            graceSeconds: grace.timeInterval,
            secondsPastDeadline: max(0, now.timeIntervalSince(deadline)),
            reportedAt: now.timeIntervalSince1970)
    }

    func verdict(
        _ verdict: Verdict, report: LeakReport? = nil, releaseDate: Date? = nil,
        allowance: KnownLeak? = nil
    ) -> WatchVerdict {
        WatchVerdict(
            watch: id, verdict: verdict, typeName: typeName, label: label, reason: reason,
            expectedAt: expectedAt, deadline: deadline, objectID: objectID,
            releaseDate: releaseDate, report: report, allowance: allowance)
    }
}

/// A closure that adds to a snapshot before it is analysed, such as references discovered by
/// inspecting memory (the ReferenceReflection module provides one).
///
/// It receives the snapshot and the nodes of the watched objects still alive, and returns the
/// snapshot to analyse.
public typealias SnapshotEnricher = @Sendable (GraphSnapshot, [ObjectID]) -> GraphSnapshot
