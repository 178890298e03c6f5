import RetainGraphUtilities
import StackTraces

extension TaskDump {
    /// The dump as a person reads it: a count by state, then each group, largest first, with
    /// its tasks' ids, what they keep alive, their actor and tree, and their async backtrace.
    ///
    /// ```text
    /// 1007 tasks in 7 groups: 1006 suspended, 1 not started
    ///
    /// 1000 tasks suspended in parkOne() at main.swift:75, awaiting withCheckedContinuation(isolation:function:_:)
    ///   Tasks 7, 8, 9, 10, 11 and 995 more
    ///     withCheckedContinuation(isolation:function:_:)  (libswift_Concurrency.so)
    ///     parkOne()  at main.swift:75
    ///     closure #1 in parkMany(_:)  at main.swift:70
    /// ```
    ///
    /// - Parameter limit: The most groups shown (the rest are counted in a last line).
    /// - Returns: The text, without a trailing newline.
    public func text(limit: Int = 50) -> String {
        var lines = [header]
        for group in groups.prefix(max(limit, 0)) {
            lines.append("")
            lines += Self.lines(of: group, in: self)
        }
        if groups.count > max(limit, 0) {
            let rest = groups.dropFirst(max(limit, 0))
            lines.append("")
            lines.append(
                "… and \(rest.count) more groups (\(rest.reduce(0) { $0 + $1.count }) tasks)")
        }
        if !limitations.isEmpty { lines.append("\nlimits: " + limitations.joined(separator: "; ")) }
        return lines.joined(separator: "\n")
    }

    /// `1007 tasks in 7 groups: 1006 suspended, 1 not started`.
    public var header: String {
        guard !tasks.isEmpty else { return "no tasks" }
        var byState: [TaskState: Int] = [:]
        for task in tasks { byState[task.state, default: 0] += 1 }
        let states = [TaskState.running, .enqueued, .suspended, .notStarted, .completed]
            .compactMap { state in byState[state].map { "\($0) \(state)" } }
        let total = tasks.count == 1 ? "1 task" : "\(tasks.count) tasks"
        let groupCount = groups.count == 1 ? "1 group" : "\(groups.count) groups"
        return "\(total) in \(groupCount): " + states.joined(separator: ", ")
    }

    /// A group's lines: its title, its tasks, what they keep alive, and its frames.
    static func lines(of group: TaskBacktraceGroup, in dump: TaskDump) -> [String] {
        var lines = [group.title]
        let ids = group.tasks.prefix(5).map { "\($0.id)" }.joined(separator: ", ")
        var detail = (group.count == 1 ? "  Task " : "  Tasks ") + ids
        if group.count > 5 { detail += " and \(group.count - 5) more" }
        if group.count == 1 {
            let task = group.tasks[0]
            if task.relation != .unstructured {
                detail += " (\(task.relation.rawValue)"
                if let parent = task.parent.flatMap(dump.task(at:)) {
                    detail += " of Task \(parent.id)"
                }
                detail += ")"
            }
            let children = task.children.compactMap(dump.task(at:)).map { "Task \($0.id)" }
            if !children.isEmpty { detail += ", children: " + children.joined(separator: ", ") }
            if let actor = task.actor { detail += ", " + actor.description }
        } else if let actor = group.tasks[0].actor {
            detail += ", \(actor.relation.rawValue) actor \(actor.typeName)"
        }
        lines.append(detail)
        if let kept = keptAlive(group) { lines.append("  " + kept) }
        for frame in group.tasks[0].backtrace {
            var line = "    " + AsyncFunctionNames.short(frame)
            if let location = AsyncFunctionNames.location(of: frame) {
                line += "  at " + location
            } else if let image = frame.imageName {
                line += "  (\(PrintableText.escaped(image)))"
            }
            lines.append(line)
        }
        return lines
    }

    /// `keeps alive 4.1 KiB in 2 objects: Refresher, [UInt8] storage`, or nil when it was not
    /// measured (no heap) or keeps nothing but itself.
    static func keptAlive(_ group: TaskBacktraceGroup) -> String? {
        let retained = group.tasks.compactMap(\.retained)
        guard !retained.isEmpty else { return nil }
        let objects = retained.reduce(0) { $0 + $1.objects }
        let bytes = retained.reduce(UInt64(0)) { $0 + $1.bytes }
        var types: [String: Int] = [:]
        for retention in retained {
            for type in retention.types { types[type.typeName, default: 0] += type.count }
        }
        let named = types.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(4).map { TypeNames.withoutModule($0.key) }
        var text = group.count == 1 ? "keeps alive " : "they keep alive "
        text += ByteCount.description(bytes)
        let tasks = group.count == 1 ? "the task" : "the tasks"
        switch objects {
        case 0: text += " (\(tasks) alone)"
        case 1: text += " in 1 object besides \(tasks)"
        default: text += " in \(objects) objects besides \(tasks)"
        }
        if !named.isEmpty { text += ": " + named.joined(separator: ", ") }
        return text
    }
}
