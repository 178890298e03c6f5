import ObjectGraph
import RuntimeLayouts
import RetainGraphUtilities

/// What holds the objects of a scan from outside the Swift heap, as root nodes of the graph
/// (the census's vocabulary, `HeapHolderKind`): one node per global variable that holds
/// objects (named from the symbol tables), one per kind of holder the census names (`Task`s,
/// `Foundation.Timer`s, blocks libdispatch keeps), one per thread whose stack or registers
/// hold objects, and one for the strong references found nowhere (retain counts the heap,
/// the globals and the other holders do not explain).
///
/// The nodes are added in that order: the path finder breaks ties between paths of the same
/// priority and length by root number, so a global is preferred to a `Task`, and a thread's
/// stack to references nothing names (`RootKind.pathPriority` ranks named holders before
/// thread stacks and unattributed references).
struct HolderScan {
    /// A global variable's storage that holds an object.
    struct Global {
        var object: Int32
        var variable: UInt
    }

    private var globals: [Global] = []
    private var variableNames: [UInt: String] = [:]
    private var variables: [UInt] = []
    private var threadSlots: [RootScan.ThreadSlot] = []
    private var threadNames: [Int32: String] = [:]
    /// Objects held from outside the heap by a holder of the given kind.
    private var held: [(object: Int32, kind: HeapHolderKind)] = []

    init(
        memory: ProcessMemory, index: AddressIndex, scanned: ScannedHeap, layouts: [RemoteLayout],
        edges: EdgeColumns
    ) {
        let roots = RootScan(memory: memory, index: index)
        var names = GlobalNames(memory: memory)
        var strongIn = [UInt32](repeating: 0, count: scanned.addresses.count)
        for (position, target) in edges.targets.enumerated()
        where CompactGraph.isRetaining(edges.flags[position]) {
            strongIn[Int(target)] &+= 1
        }
        for slot in roots.globals() {
            let variable = names.variable(at: slot.slot)
            if variableNames[variable.start] == nil {
                variables.append(variable.start)
                variableNames[variable.start] = variable.name
            }
            globals.append(Global(object: slot.object, variable: variable.start))
            strongIn[Int(slot.object)] &+= 1
        }
        threadSlots = roots.threads()
        threadNames = Dictionary(memory.threads.map { ($0.id, $0.name) }) { first, _ in first }
        // Stack words are not counted: a stale one would hide what really holds an object.
        for object in scanned.addresses.indices {
            let retained = scanned.retainCounts[object]
            guard retained != UInt32.max, retained > strongIn[object] else { continue }
            let layout = layouts[Int(scanned.layouts[object])]
            let kind: HeapHolderKind
            switch layout.shape {
            case .task: kind = .task
            case .block: kind = .dispatchBlock
            default:
                if layout.isTimer {
                    kind =
                        TimerState.isValid(
                            timer: scanned.addresses[object], layout: layout, memory: memory)
                        ? .scheduledTimer : .foundationTimer
                } else {
                    kind = .outside
                }
            }
            held.append((Int32(object), kind))
        }
    }

    /// Adds the holder nodes after the `objectCount` objects, each with edges to what it holds.
    func add(to builder: inout CompactGraph.Builder, objectCount: Int) {
        var columns = EdgeColumns()
        // Globals: one node per variable, named without the discriminators of private
        // declarations unless two names would then collide.
        let readable = TypeNames.withoutDiscriminators(variables.map { variableNames[$0] ?? "" })
        var variableNode: [UInt: CompactGraph.NodeID] = [:]
        for (variable, name) in zip(variables, readable) {
            let node = builder.addNode(kind: .root, typeName: "global variable", label: name)
            builder.addRoot(
                node, kind: .heapHolder(.globalVariable, description: "global variable \(name)"))
            variableNode[variable] = node
        }
        let strong = CompactGraph.flags(.strong, .heap)
        let globalRole = builder.intern(.heldBy(.globalVariable))
        for global in globals {
            guard let node = variableNode[global.variable] else { continue }
            columns.append(
                source: node, target: UInt32(global.object), flags: strong, role: globalRole)
        }
        // The holders the census names, then the threads, then what nothing names.
        var kindNode: [HeapHolderKind: CompactGraph.NodeID] = [:]
        let named: [HeapHolderKind] = [.task, .scheduledTimer, .foundationTimer, .dispatchBlock]
        for kind in named where held.contains(where: { $0.kind == kind }) {
            kindNode[kind] = addHolder(kind, to: &builder)
        }
        var threadNode: [Int32: CompactGraph.NodeID] = [:]
        for thread in Set(threadSlots.map(\.thread)).sorted() {
            let name = "thread \(thread) \"\(threadNames[thread] ?? "?")\""
            let node = builder.addNode(
                kind: .root, typeName: HeapHolderKind.threadStack.groupName, label: name)
            builder.addRoot(
                node,
                kind: .heapHolder(.threadStack, description: "the stack or registers of \(name)"))
            threadNode[thread] = node
        }
        if held.contains(where: { $0.kind == .outside }) {
            kindNode[.outside] = addHolder(.outside, to: &builder)
        }
        for (object, kind) in held {
            guard let node = kindNode[kind] else { continue }
            columns.append(
                source: node, target: UInt32(object), flags: strong,
                role: builder.intern(.heldBy(kind)))
        }
        // A stack word is read without a layout: conservative.
        let stackFlags = CompactGraph.flags(.conservative, .heap)
        let stackRole = builder.intern(.heldBy(.threadStack))
        for slot in threadSlots {
            guard let node = threadNode[slot.thread] else { continue }
            columns.append(
                source: node, target: UInt32(slot.object), flags: stackFlags, role: stackRole)
        }
        builder.appendEdges(
            sources: columns.sources, targets: columns.targets, flags: columns.flags,
            roles: columns.roles, tags: [])
    }

    private func addHolder(_ kind: HeapHolderKind, to builder: inout CompactGraph.Builder)
        -> CompactGraph.NodeID
    {
        let node = builder.addNode(kind: .root, typeName: kind.groupName)
        builder.addRoot(node, kind: .heapHolder(kind, description: Self.description(of: kind)))
        return node
    }

    /// How a holder of `kind` is described, in the census's words
    /// (``/ObjectGraph/HeapHolderKind/holderDescription``), except for unattributed
    /// references, whose description says what an attach knows of them.
    static func description(of kind: HeapHolderKind) -> String {
        switch kind {
        case .outside:
            return "held from outside the Swift heap (C code or the runtime: strong references "
                + "its retain count has and the attach found nowhere)"
        default: return kind.holderDescription
        }
    }
}
