import ObjectGraph
import RuntimeLayouts

extension EdgeColumns {
    /// Each task's reference to the closure it runs: the first of its references, in the
    /// order of its words, to a closure context (or a block).
    ///
    /// A task is read conservatively, and the closure it runs is the first closure context its
    /// words point at: the runtime's `swift_task_create` allocates the task's first async
    /// context (after the header it initialises) from the task's own allocator, with the
    /// closure context in the `FutureAsyncContextPrefix` just before it; the memory after it
    /// (the first frames, or stale bytes in a task that has not started) may point at any
    /// object, and is not looked at. That word is live for as long as the task is: the path
    /// finder may take it as a typed reference, where the task's other words are a last resort.
    ///
    /// - Parameters:
    ///   - objectKinds: Each object's kind, as the reader read it.
    ///   - typeIndex: Each object's layout index (a layout of `layouts` when below its count).
    ///   - layouts: The layouts the scan used.
    /// - Returns: Per task that runs a closure, the task's node and the edge to its closure.
    /// - Complexity: O(*r*) for *r* references.
    func taskClosures(
        objectKinds: [HeapObjectKind], typeIndex: [Int32], layouts: [CompiledLayout]
    ) -> [(task: Int, edge: Int)] {
        guard objectKinds.contains(.task) else { return [] }
        let closureTypes = layouts.map { $0.kind == .closureContext || $0.kind == .block }
        var found = [Bool](repeating: false, count: objectKinds.count)
        var closures: [(task: Int, edge: Int)] = []
        // A reader appends an object's references in the order of its words.
        for edge in sources.indices {
            let source = Int(sources[edge])
            guard objectKinds[source] == .task, !found[source] else { continue }
            let type = Int(typeIndex[Int(targets[edge])])
            guard type >= 0, type < layouts.count, closureTypes[type] else { continue }
            found[source] = true
            closures.append((source, edge))
        }
        return closures
    }

    /// The tasks the concurrency runtime made to wake a `Task.sleep`: those whose closure
    /// (``taskClosures(objectKinds:typeIndex:layouts:)``) is a `Task.sleep`'s wake-up closure
    /// (``/RuntimeLayouts/CompiledLayout/isSleepWakeUp``).
    ///
    /// Every `Task.sleep` makes a second task, which runs that closure at the deadline (see
    /// ``/RuntimeLayouts/RuntimeTasks``); its header is a plain future's, so the closure it runs
    /// is what tells it apart.
    ///
    /// - Parameters:
    ///   - closures: Each task's reference to its closure.
    ///   - typeIndex: Each object's layout index (a layout of `layouts` when below its count).
    ///   - layouts: The layouts the scan used.
    /// - Returns: The wake-up tasks, by node.
    func sleepWakeUpTasks(
        closures: [(task: Int, edge: Int)], typeIndex: [Int32], layouts: [CompiledLayout]
    ) -> [Int] {
        closures.filter { layouts[Int(typeIndex[Int(targets[$0.edge])])].isSleepWakeUp }.map(\.task)
    }
}
