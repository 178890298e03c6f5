// PRIVATE SWIFT-CORELIBS-FOUNDATION DETAILS: a `Foundation.Timer` keeps its CoreFoundation timer
// in its stored property `_timerStorage`; a CoreFoundation object starts with its class word, a
// Swift reference count and `_cfinfoa`, whose bit 3 is the run-loop timer's "valid" flag
// (cleared by `invalidate()`). A `Foundation.Thread` keeps its pthread in `_thread`.

import ObjectGraph
import RetainGraphUtilities
import RuntimeLayouts

/// Finds what holds a scan's objects from outside the Swift heap, and adds those holders as
/// the graph's roots: one node per global variable that holds objects (named from the symbol
/// tables), one per kind of holder the objects themselves name (`Task`s, `Foundation.Timer`s,
/// blocks libdispatch keeps), one per running `Foundation.Thread`, one per thread whose stack or
/// registers hold objects, and one for the strong references found nowhere (retain counts the
/// heap, the globals and the other holders do not explain).
///
/// The nodes are added in that order: the path finder breaks ties between paths of the same
/// priority and length by root number, so a global is preferred to a `Task`, and a thread's
/// stack to references nothing names (``/ObjectGraph/RootKind/pathPriority`` ranks named
/// holders before thread stacks and unattributed references).
///
/// A global's words are read without a layout. For an object that names its own holder (a
/// `Task`, a block libdispatch keeps, a `Foundation.Timer`, a `Foundation.Thread`), such a
/// word, or any word read conservatively, neither explains a retain count nor outranks that
/// holder: a stale word, or a word of a C library's data named after the nearest symbol, would
/// otherwise hide what really keeps the object (the runtime, libdispatch, a run loop, a
/// running thread).
struct HolderFinder {
    /// Per object: strong references found neither in the heap nor in a global.
    private(set) var outside: [UInt32]
    /// Each global word that is an object's address, and whether that object names its own
    /// holder (see above).
    private var globals: [(object: Int32, variable: UInt, namesOwnHolder: Bool)] = []
    private var variables: [UInt] = []
    private var variableNames: [UInt: String] = [:]
    private var stackHolders: [(thread: Int32, object: Int32)] = []
    private var threadNames: [Int32: String]
    /// Objects held from outside the heap by a holder of the given kind (a running thread's
    /// name beside it).
    private var held: [(object: Int32, kind: HeapHolderKind, thread: String?)] = []

    init(
        count: Int, edges: EdgeColumns, retainCounts: [UInt32], roots: some HeapRoots,
        index: AddressIndex, addresses: [UInt], objectKinds: [HeapObjectKind],
        typeIndex: [Int32], layouts: [CompiledLayout]
    ) {
        // A local, not kept: 4 bytes an object that the rest of the build need not hold.
        var strongIn = [UInt32](repeating: 0, count: count)
        outside = [UInt32](repeating: 0, count: count)
        threadNames = roots.threadNames
        func namesOwnHolder(_ object: Int) -> Bool {
            switch objectKinds[object] {
            case .task, .block: return true
            default:
                let type = Int(typeIndex[object])
                return type >= 0 && type < layouts.count
                    && (layouts[type].isTimer || layouts[type].isThread)
            }
        }
        let conservative = Ownership.conservative.byte
        for edge in edges.targets.indices where CompactGraph.isRetaining(edges.flags[edge]) {
            let target = Int(edges.targets[edge])
            // A word read without a layout (a task's memory, a context whose captures could
            // not be decoded: maybe stale) does not explain the count of an object that names
            // its own holder either.
            if edges.flags[edge] & 7 == conservative, namesOwnHolder(target) { continue }
            strongIn[target] &+= 1
        }
        guard var lowest = addresses.first else { return }
        var highest = lowest
        // Loops over buffers, not generic iterators and `min`: a debug build runs those
        // unspecialised.
        addresses.withUnsafeBufferPointer { addresses in
            guard let base = addresses.baseAddress else { return }
            var position = 0
            while position < addresses.count {
                let address = base[position]
                if address < lowest { lowest = address }
                if address > highest { highest = address }
                position += 1
            }
        }
        var found: [(slot: UInt, object: Int32)] = []
        roots.forEachGlobal(holding: index, within: lowest...highest) { found.append(($0, $1)) }
        for (slot, object) in found {
            let variable = roots.variable(containing: slot)
            if variableNames[variable.start] == nil {
                variables.append(variable.start)
                variableNames[variable.start] = variable.name
            }
            let namesOwnHolder = namesOwnHolder(Int(object))
            globals.append((object, variable.start, namesOwnHolder))
            if !namesOwnHolder { strongIn[Int(object)] &+= 1 }
        }
        // Stack words are not counted: a stale one would hide what really holds an object.
        roots.forEachStackHolder(holding: index) { stackHolders.append(($0, $1)) }
        for object in 0..<count {
            let retained = retainCounts[object]
            // Immortal objects report enormous counts; they are nobody's leak.
            guard retained < 1 << 30, retained > strongIn[object] else { continue }
            outside[object] = retained - strongIn[object]
        }
    }

    /// Names the holder of every object with references from outside the heap.
    ///
    /// A task of the runtime's own (`runtimeTasks`: a `Task.sleep`'s wake-up) is held from
    /// outside like any object the runtime keeps, not as a `Task` holder: it holds no object of
    /// the program, so a stale word of its memory must never outrank the program's task that
    /// really holds an object (the sleeping task's path goes through its closure, one step
    /// longer than a stale word).
    mutating func attribute(
        objectKinds: [HeapObjectKind], typeIndex: [Int32], layouts: [CompiledLayout],
        roots: some HeapRoots, addresses: [UInt], runtimeTasks: Set<Int> = []
    ) {
        for object in outside.indices where outside[object] > 0 {
            let type = Int(typeIndex[object])
            let layout = type < layouts.count ? layouts[type] : nil
            switch objectKinds[object] {
            case .task where runtimeTasks.contains(object):
                held.append((Int32(object), .outside, nil))
            case .task: held.append((Int32(object), .task, nil))
            case .block: held.append((Int32(object), .dispatchBlock, nil))
            default:
                if let layout, layout.isTimer {
                    let isValid = Self.isValidTimer(
                        at: addresses[object], layout: layout, memory: roots.memory)
                    held.append((Int32(object), isValid ? .scheduledTimer : .foundationTimer, nil))
                } else if let layout, layout.isThread, let offset = layout.handleOffset,
                    let pthread = roots.memory.word(at: addresses[object] &+ UInt(offset)),
                    case let thread = roots.thread(object: addresses[object], pthread: pthread),
                    thread.isRunning
                {
                    held.append((Int32(object), .thread, thread.name))
                } else {
                    held.append((Int32(object), .outside, nil))
                }
            }
        }
    }

    /// Whether the timer at `timer` is valid; true when its state cannot be read (a timer is
    /// valid until invalidated, and most are never invalidated).
    static func isValidTimer(at timer: UInt, layout: CompiledLayout, memory: any MemoryReader)
        -> Bool
    {
        guard let offset = layout.handleOffset,
            let cfTimer = memory.word(at: timer &+ UInt(offset)), cfTimer != 0,
            let info = memory.word(at: cfTimer &+ 16)
        else { return true }
        return (info >> 3) & 1 != 0
    }

    /// Adds the holder nodes after the objects, each with edges to what it holds.
    func addNodes(to builder: inout CompactGraph.Builder, unattributed: UnattributedReferences) {
        var columns = EdgeColumns()
        let strong = CompactGraph.flags(.strong, .heap)
        // Globals: one node per variable, named without the discriminators of private
        // declarations unless two names would then collide.
        let readable = TypeNames.withoutDiscriminators(variables.map { variableNames[$0] ?? "" })
        var variableNode: [UInt: CompactGraph.NodeID] = [:]
        for (variable, name) in zip(variables, readable) {
            let node = builder.addNode(kind: .root, typeName: "global variable", label: name)
            builder.addRoot(node, kind: .heapHolder(.globalVariable(name: name)))
            variableNode[variable] = node
        }
        let globalRole = builder.intern(.heldBy(.globalVariable))
        let conservative = CompactGraph.flags(.conservative, .heap)
        for global in globals {
            guard let node = variableNode[global.variable] else { continue }
            columns.append(
                source: node, target: UInt32(global.object),
                flags: global.namesOwnHolder ? conservative : strong,
                role: globalRole)
        }
        // The holders the objects name, one node per kind (a running thread's per thread).
        var kindNode: [HeapHolderKind: CompactGraph.NodeID] = [:]
        let named: [(HeapHolderKind, HeapHolder)] = [
            (.task, .task), (.scheduledTimer, .scheduledTimer),
            (.foundationTimer, .foundationTimer), (.dispatchBlock, .dispatchBlock),
        ]
        for (kind, holder) in named where held.contains(where: { $0.kind == kind }) {
            kindNode[kind] = addHolder(holder, to: &builder)
        }
        var threadObjectNode: [Int32: CompactGraph.NodeID] = [:]
        for entry in held where entry.kind == .thread {
            threadObjectNode[entry.object] = addHolder(
                .thread(name: entry.thread), label: entry.thread, to: &builder)
        }
        // Then the threads whose stacks hold objects, then what nothing names.
        var stackNode: [Int32: CompactGraph.NodeID] = [:]
        for thread in Set(stackHolders.map(\.thread)).sorted() {
            let name = threadNames[thread] ?? "?"
            stackNode[thread] = addHolder(
                .threadStack(threadID: thread, name: name), label: "thread \(thread) \"\(name)\"",
                to: &builder)
        }
        if held.contains(where: { $0.kind == .outside }) {
            kindNode[.outside] = addHolder(.outside(unattributed), to: &builder)
        }
        for entry in held {
            guard
                let node = entry.kind == .thread
                    ? threadObjectNode[entry.object] : kindNode[entry.kind]
            else { continue }
            columns.append(
                source: node, target: UInt32(entry.object), flags: strong,
                role: builder.intern(.heldBy(entry.kind)))
        }
        // A stack word is read without a layout: conservative.
        let stackRole = builder.intern(.heldBy(.threadStack))
        for holder in stackHolders {
            guard let node = stackNode[holder.thread] else { continue }
            columns.append(
                source: node, target: UInt32(holder.object), flags: conservative, role: stackRole)
        }
        builder.appendEdges(
            sources: columns.sources, targets: columns.targets, flags: columns.flags,
            roles: columns.roles, tags: [])
    }

    private func addHolder(
        _ holder: HeapHolder, label: String? = nil, to builder: inout CompactGraph.Builder
    ) -> CompactGraph.NodeID {
        let node = builder.addNode(kind: .root, typeName: holder.kind.groupName, label: label)
        builder.addRoot(node, kind: .heapHolder(holder))
        return node
    }
}
