import ObjectGraph
import RuntimeLayouts

extension EdgeColumns {
    /// The tasks the concurrency runtime made to wake a `Task.sleep`: those that reference a
    /// `Task.sleep`'s wake-up closure (``/RuntimeLayouts/CompiledLayout/isSleepWakeUp``) and no
    /// other closure context.
    ///
    /// Every `Task.sleep` makes a second task, which runs that closure at the deadline (see
    /// ``/RuntimeLayouts/RuntimeTasks``); its header is a plain future's, so the closure it runs
    /// is what tells it apart. A program's task always holds the closure it runs (a context
    /// of the program's, or the generic thunk `Task.init` wraps it in) until it ends, so a
    /// task that also held a stale word pointing at some wake-up closure is still the
    /// program's.
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
        // Per task: 1 when it runs a wake-up closure, 2 when it holds another closure.
        var seen = [UInt8](repeating: 0, count: objectKinds.count)
        for edge in sources.indices {
            let source = Int(sources[edge])
            guard objectKinds[source] == .task else { continue }
            let type = Int(typeIndex[Int(targets[edge])])
            guard type >= 0, type < layouts.count, closureTypes[type] else { continue }
            seen[source] |= wakeUpTypes[type] ? 1 : 2
        }
        return seen.indices.filter { seen[$0] == 1 }
    }
}
