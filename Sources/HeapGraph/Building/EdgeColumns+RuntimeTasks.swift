import ObjectGraph
import RuntimeLayouts

extension EdgeColumns {
    /// Each task's reference to the closure it runs: of its references to closure contexts
    /// (and blocks), in the order of its words, the first that `isRun` says is the word the
    /// runtime wrote, else the first.
    ///
    /// A task is read conservatively. The runtime's `swift_task_create` allocates the task's
    /// first async context (after the header it initialises) from the task's own allocator,
    /// with the closure context in the `FutureAsyncContextPrefix` just before it; the memory
    /// after it (the first frames, or stale bytes in a task that has not started) may point at
    /// any object, and so may bytes before it the runtime leaves alone. A stale word there that
    /// points at another closure context must not be taken for the task's closure (the task's
    /// own would lose its place as a typed reference, and a stale word of another task could
    /// outrank it). The word `isRun` accepts is live for as long as the task is: the path
    /// finder may take it as a typed reference, where the task's other words are a last resort.
    ///
    /// - Parameters:
    ///   - objectKinds: Each object's kind, as the reader read it.
    ///   - typeIndex: Each object's layout index (a layout of `layouts` when below its count).
    ///   - layouts: The layouts the scan used.
    ///   - isRun: Whether the task (a node) runs the closure (a node): its word is the one the
    ///     runtime wrote.
    /// - Returns: Per task that points at a closure, the task's node, the edge to its closure,
    ///   and whether `isRun` accepted it.
    /// - Complexity: O(*r*) for *r* references, plus one `isRun` per reference from a task to
    ///   a closure until one is accepted.
    func taskClosures(
        objectKinds: [HeapObjectKind], typeIndex: [Int32], layouts: [CompiledLayout],
        isRun: (_ task: Int, _ closure: Int) -> Bool
    ) -> [TaskClosure] {
        guard objectKinds.contains(.task) else { return [] }
        let closureTypes = layouts.map { $0.kind == .closureContext || $0.kind == .block }
        var position: [Int: Int] = [:]  // a task's entry in `closures`
        var closures: [TaskClosure] = []
        // A reader appends an object's references in the order of its words.
        for edge in sources.indices {
            let source = Int(sources[edge])
            guard objectKinds[source] == .task else { continue }
            let known = position[source]
            if let known, closures[known].isRun { continue }
            let target = Int(targets[edge])
            let type = Int(typeIndex[target])
            guard type >= 0, type < layouts.count, closureTypes[type] else { continue }
            let closure = TaskClosure(task: source, edge: edge, isRun: isRun(source, target))
            if let known {
                if closure.isRun { closures[known] = closure }
            } else {
                position[source] = closures.count
                closures.append(closure)
            }
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
        closures: [TaskClosure], typeIndex: [Int32], layouts: [CompiledLayout]
    ) -> [Int] {
        closures.filter { layouts[Int(typeIndex[Int(targets[$0.edge])])].isSleepWakeUp }.map(\.task)
    }
}

/// A task's reference to a closure context: the one it runs when ``isRun``.
struct TaskClosure {
    /// The task's node.
    var task: Int
    /// The edge to the closure.
    var edge: Int
    /// Whether the word is the one the runtime wrote for the closure the task runs.
    var isRun: Bool
}
