import Foundation
import HeapCensus
import ProcessAttach

/// The at-exit look at tasks: the tasks still suspended when a test process ends, which will
/// never resume (a continuation nobody resumes, a loop nobody cancels, an `AsyncStream` nobody
/// finishes), grouped by async backtrace with their count, each group with the line that
/// created its first task.
///
/// It runs after the leaked-cycle check (``ExitCheck``), from the same `atexit` handler, and
/// writes its summary to standard error. The census knows every live task; the remote mirror
/// reads each (``/ProcessAttach/TaskInspection/thisProcess()``). Tasks the runtime made for
/// itself (a `Task.sleep`'s timer) are left out: the task that sleeps is there.
///
/// `RETAINGRAPH_TASKS_AT_EXIT=0` turns it off.
public enum TasksAtExit {
    /// The tasks suspended now, grouped; nil when this process's tasks cannot be read (the
    /// reason is in the text).
    ///
    /// - Returns: The dump of the suspended tasks, or nil.
    public static func suspendedTasks() -> TaskDump? {
        guard let reader = TaskInspection.thisProcess() else { return nil }
        let addresses = Array(HeapCensus.counts().addresses(ofType: "Task"))
        return reader.dump(ofTasksAt: addresses).filtered {
            $0.state == .suspended && !$0.isRuntimeTask
        }
    }

    /// The summary: a line per group (its count, where its tasks wait, what they await, where
    /// the first was created) and its frames; empty when no task is left.
    ///
    /// - Parameter dump: What ``suspendedTasks()`` found, or nil.
    /// - Returns: The text, without a trailing newline.
    public static func text(_ dump: TaskDump?) -> String {
        guard let dump else {
            return "RetainGraph: tasks at exit not read: "
                + (TaskInspection.thisProcessUnavailableReason ?? "no remote mirror")
        }
        let suspended = dump.tasks
        guard !suspended.isEmpty else { return "" }
        var lines = [
            "RetainGraph: \(suspended.count) task\(suspended.count == 1 ? "" : "s") still "
                + "suspended at exit, in \(dump.groups.count) group"
                + "\(dump.groups.count == 1 ? "" : "s") (they will never resume):"
        ]
        for group in dump.groups {
            var title = "  " + group.title
            if let created = HeapCensus.creationSite(ofObjectAt: group.tasks[0].address)?
                .userLocation(excludingModules: [])
            {
                title += "; created at " + created
            }
            lines.append(title)
            for frame in group.tasks[0].backtrace {
                var line = "      " + AsyncTaskInfo.shortName(of: frame)
                if let location = AsyncTaskInfo.location(of: frame) { line += " at " + location }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Writes the summary to standard error unless `RETAINGRAPH_TASKS_AT_EXIT` is off.
    static func report(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let setting = environment["RETAINGRAPH_TASKS_AT_EXIT"]?.lowercased() ?? ""
        guard !["0", "off", "no", "false"].contains(setting) else { return }
        let text = text(suspendedTasks())
        guard !text.isEmpty else { return }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
