import ObjectGraph
import RetainGraphUtilities
import RuntimeLayouts
import StackTraces

extension HeapSnapshot {
    /// Builds a snapshot from what a reader scanned: the one graph builder of every heap.
    ///
    /// Keeps the objects the scan read and the references between them (the words that are
    /// objects' addresses; roles that depend on their target named after it), decodes the
    /// copied dynamic values, looks through closure contexts that only forward to another
    /// closure, names the boxes of values held out of line, then finds what holds objects from
    /// outside the heap and adds one holder node per global variable, per running thread, per
    /// thread stack and per other kind of holder: the graph's roots.
    ///
    /// - Complexity: O(*n* + *r*) for *n* objects and *r* references, plus one pass over the
    ///   process's global data (and, from outside, its stacks).
    package init(
        scan: HeapScan, roots: some HeapRoots, process: HeapProcess, limitations: [String],
        statistics: HeapReadStatistics, creationTraces: (@Sendable (UInt) -> StackTrace?)? = nil
    ) {
        self.init(
            resolved: ResolvedScan(scan), roots: roots, process: process,
            limitations: limitations, statistics: statistics, creationTraces: creationTraces)
    }

    /// Builds a snapshot from a scan read out and resolved (``ResolvedScan``): the rest of
    /// ``init(scan:roots:process:limitations:statistics:creationTraces:)``, after which a
    /// reader that handed its scan over holds nothing of it.
    ///
    /// The columns the graph keeps are moved out of `resolved` into the graph builder, not
    /// copied: the holders' nodes and edges, appended after them, then grow one column at a
    /// time.
    ///
    /// With `keepsAddressIndex` false, the index of the objects' addresses goes once the holders
    /// are found, before the graph is built, and the snapshot makes it again on its first
    /// ``object(at:)``: 16 bytes an object less at the build's peak, for a reader whose callers
    /// rarely look objects up by address (an attach's).
    package init(
        resolved: consuming ResolvedScan, roots: some HeapRoots, process: HeapProcess,
        limitations: [String], statistics: HeapReadStatistics,
        creationTraces: (@Sendable (UInt) -> StackTrace?)? = nil, keepsAddressIndex: Bool = true
    ) {
        resolved.releaseScan()
        let count = resolved.count
        let retainCounts = resolved.retainCounts
        var index = AddressIndex([])
        var builder = resolved.builder
        let objectKinds = resolved.objectKinds
        let typeIndex = resolved.typeIndex
        let layouts = resolved.layouts
        let typeNames = resolved.typeNames
        let boxes = resolved.boxes
        // Moved out, not copied: the builder adopts these and appends the holders to them,
        // which copies an array another value still holds, whole.
        var addresses: [UInt] = []
        var sizes: [UInt32] = []
        var nodeKinds: [CompactGraph.NodeKind] = []
        var nodeTypes: [UInt32] = []
        var edges = EdgeColumns()
        swap(&addresses, &resolved.addresses)
        swap(&sizes, &resolved.sizes)
        swap(&nodeKinds, &resolved.nodeKinds)
        swap(&nodeTypes, &resolved.nodeTypes)
        swap(&edges, &resolved.edges)
        swap(&index, &resolved.index)
        // Each task's closure, found before the references forwarding contexts add.
        let taskClosures = edges.taskClosures(
            objectKinds: objectKinds, typeIndex: typeIndex, layouts: layouts
        ) { task, closure in
            Self.isClosureInPrefix(
                of: addresses[task], size: Int(sizes[task]), closure: addresses[closure],
                memory: roots.memory)
        }
        let forwarding = edges.lookThroughForwardingContexts(
            typeIndex: typeIndex, layouts: layouts, kinds: nodeKinds, typeNames: typeNames,
            builder: &builder)
        // A context that only forwards to another closure (a reabstraction thunk's, the generic
        // one `Task.init` wraps a task's closure in) is named after that closure, the same way
        // whichever reader read it and whether or not its own captures could be decoded:
        // `thunk of closure context (captures Owner)`.
        for (context, target) in forwarding.forwardedTo {
            nodeTypes[Int(context)] = builder.intern(
                "thunk of " + typeNames[Int(typeIndex[Int(target)])])
        }
        // Boxes the compiler made for values held out of line look like closure contexts:
        // named as what they are.
        for box in boxes where typeIndex[Int(box)] < Int32(layouts.count) {
            let layout = layouts[Int(typeIndex[Int(box)])]
            guard layout.kind == .closureContext || layout.kind == .box else { continue }
            nodeKinds[Int(box)] = .box
            nodeTypes[Int(box)] = builder.intern(layout.boxName)
        }
        // The tasks the runtime makes to wake a `Task.sleep`: named as what they are, so that
        // `Task` counts the program's tasks.
        let wakeUpTasks = edges.sleepWakeUpTasks(
            closures: taskClosures, typeIndex: typeIndex, layouts: layouts)
        if !wakeUpTasks.isEmpty {
            let name = builder.intern(RuntimeTasks.sleepWakeUpTask)
            for task in wakeUpTasks { nodeTypes[task] = name }
        }

        // A word of a task's (or job's) memory may be a pointer its private allocator left
        // behind: a path through one is a last resort, taken only when nothing else reaches
        // the object. The closure a task runs is the exception: that word is live, a strong
        // reference, so a stale word of another task's memory never outranks it.
        let runs = builder.intern(ReferenceRole.runs)
        for edge in edges.roles.indices where edges.roles[edge] == runs {
            edges.flags[edge] = CompactGraph.lastResort(edges.flags[edge])
        }
        // (When the closure only forwards to another, the direct reference beside it is.)
        let liveClosure = CompactGraph.flags(.strong, .heap)
        for closure in taskClosures where closure.isRun {
            edges.flags[forwarding.directEdges[closure.edge] ?? closure.edge] = liveClosure
        }
        // A wake-up task holds nothing of the program's but its closure: its other words are
        // the runtime's or stale, and must not name a holder (they would outrank a thread's
        // stack).
        if !wakeUpTasks.isEmpty {
            var isWakeUp = [Bool](repeating: false, count: count)
            for task in wakeUpTasks { isWakeUp[task] = true }
            var closureEdges = Set<Int>()
            for closure in taskClosures where isWakeUp[closure.task] {
                closureEdges.insert(closure.edge)
                if let direct = forwarding.directEdges[closure.edge] { closureEdges.insert(direct) }
            }
            edges.removeAll { edge, source, role in
                isWakeUp[Int(source)] && role == runs && !closureEdges.contains(edge)
            }
        }

        // What holds objects from outside the heap.
        var holders = HolderFinder(
            count: count, edges: edges, retainCounts: retainCounts, roots: roots, index: index,
            addresses: addresses, objectKinds: objectKinds, typeIndex: typeIndex, layouts: layouts)
        holders.attribute(
            objectKinds: objectKinds, typeIndex: typeIndex, layouts: layouts, roots: roots,
            addresses: addresses, runtimeTasks: Set(wakeUpTasks))
        let keptIndex = keepsAddressIndex ? index : nil
        index = AddressIndex([])

        builder.addNodes(
            kinds: nodeKinds.taken(), typeNameNumbers: nodeTypes.taken(),
            addresses: addresses.taken(), sizes: sizes.taken())
        builder.appendEdges(
            sources: edges.sources.taken(), targets: edges.targets.taken(),
            flags: edges.flags.taken(), roles: edges.roles.taken(), tags: [])
        holders.addNodes(to: &builder, unattributed: roots.unattributed)
        // Objects keep their numbers: a node's number is its HeapObjectID.
        // Consumed, not copied: the build places the edges in the builder's own columns, and a
        // copy still held here would make it copy each of them first.
        let graph = (consume builder).build(numberingForLocality: false)
        var problems = Set<String>()
        var allLimitations = limitations
        for layout in layouts {
            if let problem = layout.problem, problems.insert(layout.typeName).inserted {
                allLimitations.append("\(layout.typeName): \(problem)")
            }
        }
        self.init(
            graph: graph, objectCount: count, process: process, limitations: allLimitations,
            statistics: statistics, addressIndex: keptIndex, retainCounts: retainCounts,
            outsideCounts: holders.outside, objectTypes: typeIndex,
            typeMetadata: layouts.map(\.metadata)
                + [UInt](repeating: 0, count: HeapObjectKind.allCases.count),
            creationTraces: creationTraces)
    }

    /// Whether one of a task's words that are `closure`'s address is the closure context of the
    /// `FutureAsyncContextPrefix` the runtime wrote before the task's first async context.
    ///
    /// `swift_task_create` lays the prefix out as four words, `indirectResult`,
    /// `asyncEntryPoint`, `closureContext` and `errorResult`, just before the initial async
    /// context, whose `Parent` it sets to null and which the task's first function never
    /// changes. So around the live word, as read: two words before, a pointer into the task
    /// not past the prefix (the future's result storage, in its future fragment: at the
    /// prefix itself when the result takes no bytes); one
    /// word before, the entry point (code: not zero, not the task, not the closure); two words
    /// after, a null `Parent`.
    ///
    /// A stale word left in the task's block by an earlier use of the memory fails the check
    /// (it may not even be there: the memory is read again), and the search goes on past it:
    /// the bytes the runtime never writes may hold copies of the same address (a freed
    /// object's, reused for the closure; or every word of a block a freed object filled), and
    /// the first match must not hide the live one. One test alone is not enough: a word of the
    /// task's allocator that points into the task can sit two words before a stale copy.
    package static func isClosureInPrefix(
        of task: UInt, size: Int, closure: UInt, memory: some MemoryReader
    ) -> Bool {
        let end = task &+ UInt(size)
        var word = task &+ 32
        while word &+ 24 <= end {
            guard let value = memory.word(at: word) else { return false }
            if value == closure,
                isFutureContextPrefix(
                    closureWord: word, closure: closure, task: task, end: end, memory: memory)
            {
                return true
            }
            word &+= 8
        }
        return false
    }

    /// Whether the words around `word` of a task's block (`task..<end`) are those
    /// `swift_task_create` writes around a future's closure context, `closure` (see
    /// ``isClosureInPrefix(of:size:closure:memory:)``).
    private static func isFutureContextPrefix(
        closureWord word: UInt, closure: UInt, task: UInt, end: UInt, memory: some MemoryReader
    ) -> Bool {
        guard let result = memory.word(at: word &- 16), result >= task &+ 16, result <= word &- 16,
            let entry = memory.word(at: word &- 8), entry != 0, entry != closure,
            entry < task || entry >= end,
            let parent = memory.word(at: word &+ 16)
        else { return false }
        return parent == 0
    }
}

extension Array {
    /// This array, leaving an empty one in its place: hands a column over so that whoever
    /// appends to it next holds its only reference (an append to a shared array copies it).
    fileprivate mutating func taken() -> Self {
        defer { self = [] }
        return self
    }
}
