import ObjectGraph
import RuntimeLayouts

extension EdgeColumns {
    /// The tasks the concurrency runtime made to wake a `Task.sleep`: those whose first
    /// reference to a closure context, in the order of their words, is to a `Task.sleep`'s
    /// wake-up closure (``/RuntimeLayouts/CompiledLayout/isSleepWakeUp``).
    ///
    /// Every `Task.sleep` makes a second task, which runs that closure at the deadline (see
    /// ``/RuntimeLayouts/RuntimeTasks``); its header is a plain future's, so the closure it runs
    /// is what tells it apart. A task is read conservatively, and the closure it runs is the
    /// first closure context its words point at: the runtime's `swift_task_create` allocates
    /// the task's first async context (after the header it initialises) from the task's own
    /// allocator, with the closure context in the `FutureAsyncContextPrefix` just before it;
    /// the memory after it (the first frames, or stale bytes in a task that has not started)
    /// may point at any object, a wake-up closure included, and is not looked at.
    ///
    /// - Parameters:
    ///   - objectKinds: Each object's kind, as the reader read it.
    ///   - typeIndex: Each object's layout index (a layout of `layouts` when below its count).
    ///   - layouts: The layouts the scan used.
    /// - Returns: The wake-up tasks, by node.
    /// - Complexity: O(*r*) for *r* references.
    func sleepWakeUpTasks(
        objectKinds: [HeapObjectKind], typeIndex: [Int32], layouts: [CompiledLayout]
    ) -> [Int] {
        let wakeUpTypes = layouts.map(\.isSleepWakeUp)
        guard wakeUpTypes.contains(true) else { return [] }
        let closureTypes = layouts.map { $0.kind == .closureContext || $0.kind == .block }
        // Per task, its first closure: 1 a wake-up closure, 2 any other. A reader appends an
        // object's references in the order of its words.
        var first = [UInt8](repeating: 0, count: objectKinds.count)
        for edge in sources.indices {
            let source = Int(sources[edge])
            guard objectKinds[source] == .task, first[source] == 0 else { continue }
            let type = Int(typeIndex[Int(targets[edge])])
            guard type >= 0, type < layouts.count, closureTypes[type] else { continue }
            first[source] = wakeUpTypes[type] ? 1 : 2
        }
        return first.indices.filter { first[$0] == 1 }
    }
}
