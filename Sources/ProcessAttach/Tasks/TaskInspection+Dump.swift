import HeapGraph
import ObjectGraph
import RuntimeLayouts
import StackTraces

extension TaskInspection {
    /// Every task of `heap`, with what each waits for and keeps alive, grouped by backtrace.
    ///
    /// See ``read(_:)``, which also gives the heap with the tasks' frames read.
    ///
    /// - Parameter heap: The heap of the same process and moment.
    /// - Returns: The dump.
    public func dump(of heap: HeapSnapshot) -> TaskDump {
        read(heap).tasks
    }

    /// The tasks at `addresses` (and their children), grouped by backtrace: a dump without a
    /// heap (no retained sizes, no actors), for a process that knows its tasks another way
    /// (this process's census).
    ///
    /// - Parameter addresses: Task objects' addresses in the process this reader reads.
    /// - Returns: The dump.
    /// - Complexity: O(*t*) mirror reads for *t* tasks, and one symbolizer run per image for
    ///   the distinct resume addresses.
    public func dump(ofTasksAt addresses: [UInt]) -> TaskDump {
        let raw = withReader {
            var seen = Set(addresses)
            var pending = addresses
            var found: [(address: UInt, info: MirrorTaskInfo)] = []
            while let address = pending.popLast() {
                guard case .success(let info) = mirror.taskInfo(at: address) else { continue }
                found.append((address, info))
                for child in info.children where seen.insert(child).inserted {
                    pending.append(child)
                }
            }
            return found
        }
        var tasks = symbolicatedTasks(raw)
        var parents: [UInt: UInt] = [:]
        for task in tasks {
            for child in task.children { parents[child] = task.address }
        }
        for index in tasks.indices { tasks[index].parent = parents[tasks[index].address] }
        return TaskDump(tasks: tasks, limitations: [])
    }

    /// Every task of `heap`, with what each waits for and keeps alive, and the heap with the
    /// tasks' async frames read.
    ///
    /// The tasks are the heap's objects of type `Task` and their children (a task-group
    /// child the heap walk did not find is reached from its parent); `heap` must have been
    /// read from the memory this reader reads (the same copy, or this process's census). Each
    /// task's parent is set from its parent's children, its actor from the actors' queues
    /// (``TaskActor/Relation/queued``) or, for a task suspended in an actor-isolated method,
    /// from the actor of that type its frames hold (``TaskActor/Relation/isolated``), and its
    /// retained size from the dominator tree of the heap with its frames read: the words of
    /// its allocator's slabs, where its suspended functions keep their locals, which a heap
    /// read alone does not see (an object only a suspended function holds would read as held
    /// from outside the Swift heap).
    ///
    /// - Parameter heap: The heap of the same process and moment.
    /// - Returns: The heap with each task's frames' references (conservative, `runs`), and the
    ///   dump.
    /// - Complexity: O(*t*) mirror reads for *t* tasks and the words of their slabs, one
    ///   symbolizer run per image for the distinct resume addresses, and O(*n* + *e*) to add
    ///   the references and for the dominator tree of a heap of *n* nodes and *e* edges.
    public func read(_ heap: HeapSnapshot) -> (heap: HeapSnapshot, tasks: TaskDump) {
        let (raw, unreadable) = withReader { rawTasks(of: heap) }
        let resume = raw.map { Self.resumeAddresses($0.info) }
        // No lock of ours held: the symbolizer is a child process, its fallback the loader's.
        let frames = symbolicate(Array(Set(resume.joined())))
        return withReader {
            readDump(of: heap, raw: raw, resume: resume, frames: frames, unreadable: unreadable)
        }
    }

    /// The heap's tasks (and their children) as the mirror reads them, and how many task
    /// objects it could not read.
    private func rawTasks(of heap: HeapSnapshot) -> (
        [(address: UInt, info: MirrorTaskInfo)], unreadable: Int
    ) {
        // The program's tasks and the runtime's own (a `Task.sleep`'s wake-up), read alike.
        var pending = RuntimeTasks.taskTypeNames.flatMap(heap.objects(ofType:)).map {
            heap[$0].address
        }
        var seen = Set(pending)
        var raw: [(address: UInt, info: MirrorTaskInfo)] = []
        var unreadable = 0
        while let address = pending.popLast() {
            guard case .success(let info) = mirror.taskInfo(at: address) else {
                unreadable += 1
                continue
            }
            raw.append((address, info))
            for child in info.children where seen.insert(child).inserted {
                pending.append(child)
            }
        }
        return (raw, unreadable)
    }

    private func readDump(
        of heap: HeapSnapshot, raw: [(address: UInt, info: MirrorTaskInfo)], resume: [[UInt]],
        frames: [UInt: [StackFrame]], unreadable: Int
    ) -> (heap: HeapSnapshot, tasks: TaskDump) {
        var limitations: [String] = []
        if unreadable > 0 {
            limitations.append("\(unreadable) task objects could not be read by the remote mirror")
        }
        var tasks = zip(raw, resume).map { makeTask($0.address, $0.info, $1, frames) }
        let framed = TaskFrames(
            tasks: raw.map { ($0.address, $0.info.allocatorSlab) }, heap: heap, mirror: mirror,
            memory: memory
        ).adding(to: heap)
        var parents: [UInt: UInt] = [:]
        for task in tasks {
            for child in task.children { parents[child] = task.address }
        }
        let memory = self.memory
        let actors = TaskActors(heap: heap, framed: framed.graph, mirror: mirror) {
            Self.word(at: $0, in: memory)
        }
        let retention = TaskRetentions(heap: framed, tasks: tasks.map(\.address))
        for index in tasks.indices {
            tasks[index].parent = parents[tasks[index].address]
            tasks[index].actor = actors.actor(of: tasks[index])
            tasks[index].retained = retention.retention(of: tasks[index].address)
        }
        if !frames.isEmpty, frames.values.allSatisfy({ $0.allSatisfy { $0.function == nil } }) {
            limitations.append(
                "no frame was named: llvm-symbolizer was not found, or the images have no symbols")
        }
        return (framed, TaskDump(tasks: tasks, limitations: limitations))
    }
}

/// The actors of a heap and the tasks queued on them.
struct TaskActors {
    /// Actor objects by address, with their type names.
    private var actors: [UInt: String] = [:]
    /// Tasks queued on an actor: the actor's address.
    private var queuedOn: [UInt: UInt] = [:]
    private let heap: HeapSnapshot
    /// The heap's graph with the tasks' frames read.
    private let graph: CompactGraph

    init(
        heap: HeapSnapshot, framed graph: CompactGraph, mirror: RemoteMirror,
        word: (UInt) -> UInt?
    ) {
        self.heap = heap
        self.graph = graph
        var isActor: [UInt: Bool] = [:]
        for index in 0..<heap.objectCount {
            let id = HeapObjectID(rawValue: Int32(index))
            let metadata = heap.metadata(of: id)
            guard metadata != 0 else { continue }
            let actor =
                isActor[metadata]
                ?? {
                    let answer = Self.isActorClass(metadata, word: word)
                    isActor[metadata] = answer
                    return answer
                }()
            guard actor else { continue }
            let object = heap[id]
            actors[object.address] = object.typeName
            for job in mirror.queuedJobs(ofActor: object.address) {
                queuedOn[job] = object.address
            }
        }
    }

    /// The actor `task` is queued on, or suspended in an isolated method of.
    func actor(of task: AsyncTaskInfo) -> TaskActor? {
        if let actor = queuedOn[task.address], let typeName = actors[actor] {
            return TaskActor(address: actor, typeName: typeName, relation: .queued)
        }
        guard !actors.isEmpty, let function = task.waitingFrame?.function,
            let node = heap.object(at: task.address)
        else { return nil }
        // The task's own references (its frames, read conservatively), and theirs once more
        // (the closure it runs captures the actor), to an actor whose type the waiting
        // function is a method of.
        let task = CompactGraph.NodeID(node.rawValue)
        var near = [task]
        for edge in graph.strongOutEdges(of: task) {
            let target = graph.target(of: CompactGraph.EdgeID(edge))
            if !RuntimeTasks.taskTypeNames.contains(graph.typeName(of: target)) {
                near.append(target)
            }
        }
        for holder in near {
            for edge in graph.strongOutEdges(of: holder) {
                let target = graph.target(of: CompactGraph.EdgeID(edge))
                guard let address = graph.address(of: target), let typeName = actors[address],
                    Self.isMethod(function, of: typeName)
                else { continue }
                return TaskActor(address: address, typeName: typeName, relation: .isolated)
            }
        }
        return nil
    }

    /// Whether `metadata` is class metadata whose type descriptor says it is an actor.
    static func isActorClass(_ metadata: UInt, word: (UInt) -> UInt?) -> Bool {
        guard metadata >= 4096, word(metadata) == 0,  // class metadata: kind word 0
            let descriptor = word(metadata &+ 40), descriptor >= 4096, let flags = word(descriptor)
        else { return false }
        return flags & 0x1F == 16 && flags & (1 << 23) != 0
    }

    /// Whether demangled `function` is a method (or a closure in one) of `typeName`.
    static func isMethod(_ function: String, of typeName: String) -> Bool {
        var name = Substring(function)
        if let range = name.range(of: "resume partial function for ") {
            name = name[range.upperBound...]
        }
        // `closure #1 … in App.Mailbox.deliver()`: the function the closure is in.
        while let range = name.range(of: " in "), name.hasPrefix("closure") {
            name = name[range.upperBound...]
        }
        return name.hasPrefix(typeName + ".")
    }
}
