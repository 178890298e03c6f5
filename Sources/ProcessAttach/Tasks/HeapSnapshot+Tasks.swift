import HeapExport
import HeapGraph
import ObjectGraph

extension HeapSnapshot {
    /// Stops process `processID` once, copies its memory, lets it go, and reads from the one
    /// copy both its heap (as ``capture(processID:options:)`` does) and its tasks.
    ///
    /// The heap comes with the tasks' async frames read (see ``TaskInspection/read(_:)``): an
    /// object only a suspended function keeps is held by its task.
    ///
    /// ```swift
    /// let (heap, tasks) = try HeapSnapshot.captureWithTasks(processID: pid)
    /// print(tasks.text())
    /// ```
    ///
    /// - Parameters:
    ///   - processID: The target: a running Swift program (any build, nothing linked in).
    ///   - options: The stop's limits, and where the remote mirror library is.
    /// - Returns: The heap, and every task with what it waits for and keeps alive.
    /// - Throws: An ``AttachError``; whatever happens, the target runs again before it is
    ///   thrown. ``AttachError/remoteMirrorUnavailable(reason:)`` when the library cannot read
    ///   tasks.
    public static func captureWithTasks(
        processID: Int32, options: AttachOptions = AttachOptions()
    ) throws(AttachError) -> (heap: HeapSnapshot, tasks: TaskDump) {
        let library = try MirrorLibrary.load(path: options.remoteMirrorPath)
        guard library.readsTasks else {
            throw .remoteMirrorUnavailable(reason: "\(library.path) cannot read tasks")
        }
        let process = try StoppedProcess(processID: processID, options: options)
        let memory = try process.captureMemory()
        let stop = process.resume()
        let heap = try HeapSnapshot(
            memory, stoppedFor: stop, library: library,
            budget: options.analysisBudget(copiedBytes: memory.copiedBytes))
        return try TaskInspection(memory: memory, library: library).read(heap)
    }

    /// Writes this snapshot (see ``/HeapGraph/HeapSnapshot/write(toFile:)``) with its tasks named: in a graph file,
    /// each task's node carries where it waits as its label (`a Task suspended in
    /// refreshForever(_:) at main.swift:25, awaiting …`, as ``namingTaskHolders(_:)`` names
    /// it, so that a who-holds answer read back groups by it); in a `.heapsnapshot`, each task is
    /// named `Task · <where it waits>` (`Task · refreshForever(_:) at main.swift:25`), so that
    /// DevTools' Summary groups tasks by where they wait, with their counts.
    ///
    /// - Parameters:
    ///   - path: Where to write; created or replaced.
    ///   - tasks: The tasks of this snapshot's process and moment.
    /// - Returns: The file's size in bytes.
    /// - Throws: ``/HeapExport/HeapExportError`` when the file cannot be written.
    @discardableResult
    public func write(toFile path: String, tasks: TaskDump) throws(HeapExportError) -> Int {
        try naming(tasks, asTypes: path.hasSuffix(".heapsnapshot"), label: \.holderDescription)
            .write(toFile: path)
    }

    /// This snapshot with each task named as a holder, by where it waits: `a Task suspended in
    /// refreshForever(_:) at main.swift:25, awaiting Task.sleep(for:tolerance:clock:)`.
    ///
    /// Who-holds answers (``/HeapGraph/HeapSnapshot/holdingGroups(of:)``) and growth then say
    /// which task holds an object, and group objects by the place their task waits: objects
    /// held by tasks waiting at two lines are two groups.
    ///
    /// ```swift
    /// let (heap, tasks) = try HeapSnapshot.captureWithTasks(processID: pid)
    /// print(heap.namingTaskHolders(tasks).whoHoldsText("App.Session"))
    /// ```
    ///
    /// - Parameter tasks: The tasks of this snapshot's process and moment.
    /// - Returns: The snapshot, its task objects labelled.
    /// - Complexity: O(*n* + *t*) for *n* objects and *t* tasks.
    public func namingTaskHolders(_ tasks: TaskDump) -> HeapSnapshot {
        naming(tasks, asTypes: false, label: \.holderDescription)
    }

    /// This snapshot with each task's node labelled by `label` (its summary by default), or
    /// (`asTypes`) its type named by where it waits.
    func naming(
        _ tasks: TaskDump, asTypes: Bool, label: (AsyncTaskInfo) -> String = \.summary
    ) -> HeapSnapshot {
        // Nothing to name: no second snapshot (its address index costs tens of milliseconds
        // at a million objects).
        guard tasks.tasks.contains(where: { object(at: $0.address) != nil }) else { return self }
        let graph = self.graph
        var strings = graph.strings
        var typeNames = graph.typeNames
        var labels = graph.everyLabel
        if labels.isEmpty, !asTypes { labels = [UInt32](repeating: 0, count: graph.nodeCount) }
        for task in tasks.tasks {
            guard let id = object(at: task.address) else { continue }
            let node = Int(id.rawValue)
            if asTypes {
                typeNames[node] = strings.intern("Task · " + task.place)
            } else {
                labels[node] = strings.intern(label(task))
            }
        }
        let named = CompactGraph(
            kinds: graph.kinds, typeNames: typeNames, labels: labels, addresses: graph.addresses,
            keys: graph.keys, sizes: graph.sizes, numberOfAdded: graph.numberOfAdded,
            rootNodes: graph.rootNodes, rootKinds: graph.rootKinds, outStart: graph.outStart,
            strongOutEnd: graph.strongOutEnd, targets: graph.targets, edgeFlags: graph.edgeFlags,
            edgeRoles: graph.edgeRoles, edgeTags: graph.edgeTags, strings: strings,
            roles: graph.roles)
        // Only the graph changes: the objects' retain and outside counts and types stay (the
        // stale-word test of leaked cycles reads them).
        return replacingGraph(named)
    }
}

extension AsyncTaskInfo {
    /// The task as a holder, without its id: `a Task suspended in refreshForever(_:) at
    /// main.swift:25, awaiting Task.sleep(for:tolerance:clock:)`.
    public var holderDescription: String {
        var text = "a Task \(state)\(isCancelled ? " (cancelled)" : "") in \(place)"
        // A task of the runtime's that has not run awaits nothing but its own entry point.
        if let awaiting, !place.hasPrefix(awaiting) { text += ", awaiting " + awaiting }
        return text
    }

    /// Where the task waits, for a name or a profile's frame: `refreshForever(_:) at
    /// main.swift:25`; for a task of the runtime's, its innermost function; else its state.
    public var place: String {
        if let waiting = waitingFrame {
            let location = AsyncFunctionNames.location(of: waiting).map { " at " + $0 } ?? ""
            return AsyncFunctionNames.short(waiting) + location
        }
        if let top = frames.first(where: { !TaskInspection.isCompletion($0) }) {
            return AsyncFunctionNames.short(top)
        }
        return state.description
    }
}
