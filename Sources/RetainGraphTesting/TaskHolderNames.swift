import LeakTracking
import ObjectGraph
import ProcessAttach

/// Names the task that holds a leaked object by where it waits, in the reports a failing test
/// shows: `GC root: a Task suspended in Poller.run() at Poller.swift:40, awaiting
/// Task.sleep(for:tolerance:clock:)` instead of `a Task (the concurrency runtime holds it …)`.
///
/// The census reads the heap without the concurrency runtime's view of its tasks; the task is
/// read here, through the remote mirror (``/ProcessAttach/TaskInspection/thisProcess()``), only
/// for reports whose path starts at a task. Without the library the report stays as it was.
enum TaskHolderNames {
    /// `verdicts`, each report's task holder named.
    static func naming(_ verdicts: [WatchVerdict]) -> [WatchVerdict] {
        guard verdicts.contains(where: { $0.report.map(startsAtTask) ?? false }) else {
            return verdicts
        }
        return verdicts.map { verdict in
            var verdict = verdict
            verdict.report = verdict.report.map(naming)
            return verdict
        }
    }

    /// `report` with the task its path starts at named by where it waits.
    static func naming(_ report: LeakReport) -> LeakReport {
        // The path starts at the holder (a root of its own), whose first reference is to the
        // task object.
        guard startsAtTask(report), let first = report.path.first,
            let index = report.objects.firstIndex(where: { $0.id == first.from }),
            let text = report.object(first.to)?.address,
            let address = UInt(text.dropFirst(2), radix: 16),
            let task = TaskInspection.thisProcess()?.task(at: address)
        else { return report }
        var named = report
        named.objects[index].root = task.holderDescription
        return named
    }

    /// Whether the report's path starts at a task holder.
    private static func startsAtTask(_ report: LeakReport) -> Bool {
        guard let first = report.path.first, let holder = report.object(first.from) else {
            return false
        }
        return holder.root == HeapHolderKind.task.holderDescription
    }
}
