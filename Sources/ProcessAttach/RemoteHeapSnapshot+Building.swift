import Foundation
import RetainGraph

extension RemoteHeapSnapshot {
    /// Stops process `processID`, copies its memory, lets it go, and finds its live Swift
    /// objects, their references and their holders in the copy.
    ///
    /// The target is stopped only while its memory is copied (a few milliseconds for a small
    /// program; about a quarter of a second for a million objects); the analysis runs after.
    ///
    /// - Parameters:
    ///   - processID: The target: a running Swift program (any build, nothing linked in).
    ///   - options: The stop's limits.
    /// - Returns: The snapshot; ``stopDuration`` says how long the target was stopped.
    /// - Throws: An ``AttachError``; whatever happens, the target runs again before it is
    ///   thrown.
    /// - Complexity: O(*m*) to copy *m* bytes of writable memory while stopped, then O(*b* +
    ///   *r*) for *b* heap blocks holding *r* references.
    public static func capture(processID: Int32, options: AttachOptions = AttachOptions())
        throws(AttachError) -> RemoteHeapSnapshot
    {
        // Loaded before the stop: a missing library must not cost the target a stop.
        let library = try MirrorLibrary.load(path: options.remoteMirrorPath)
        let process = try StoppedProcess(processID: processID, options: options)
        let memory = try process.captureMemory()
        let stop = process.resume()
        return try RemoteHeapSnapshot(memory, stoppedFor: stop, library: library)
    }

    /// Finds the live Swift objects, references and holders in memory captured from a stopped
    /// process (``StoppedProcess/captureMemory()``).
    ///
    /// - Parameters:
    ///   - memory: What was read while the target was stopped.
    ///   - stoppedFor: How long it was stopped, if the caller measured it
    ///     (``StoppedProcess/resume()`` returns it).
    ///   - options: Where the remote mirror library is (``AttachOptions/remoteMirrorPath``).
    /// - Throws: ``AttachError/remoteMirrorUnavailable(reason:)``.
    public init(
        _ memory: ProcessMemory, stoppedFor: Duration? = nil,
        options: AttachOptions = AttachOptions()
    ) throws(AttachError) {
        let library = try MirrorLibrary.load(path: options.remoteMirrorPath)
        try self.init(memory, stoppedFor: stoppedFor, library: library)
    }

    init(_ memory: ProcessMemory, stoppedFor: Duration?, library: MirrorLibrary) throws(AttachError)
    {
        let started = ContinuousClock.now
        let heap = GlibcHeap(memory)
        let mirror = try RemoteMirror(library: library, memory: memory)
        let compiler = RemoteLayoutCompiler(mirror: mirror, memory: memory)
        var scan = HeapObjectScan(memory: memory, compiler: compiler)
        scan.scan(blocks: heap.blocks, sizes: heap.sizes)
        let scanned = scan.heap
        let table = AddressTable(scanned.addresses)

        // References whose word is a live object's address.
        var references = ReferenceColumns()
        references.sources.reserveCapacity(scanned.words.count)
        references.targets.reserveCapacity(scanned.words.count)
        for index in scanned.words.indices {
            guard let target = table.index(of: scanned.words[index]) else { continue }
            references.sources.append(scanned.sources[index])
            references.targets.append(UInt32(target))
            references.ownerships.append(scanned.ownerships[index])
            references.labels.append(scanned.labels[index])
        }

        let holders = Self.holders(
            memory: memory, table: table, scanned: scanned, references: references,
            layouts: compiler.layouts)
        let types = compiler.layouts.map {
            RemoteType(name: $0.typeName, shape: $0.shape.rawValue, isTimer: $0.isTimer)
        }
        var limitations = memory.limitations + heap.limitations
        var problems = Set<String>()
        for layout in compiler.layouts {
            if let problem = layout.problem, problems.insert(layout.typeName).inserted {
                limitations.append("\(layout.typeName): \(problem)")
            }
        }
        var statistics = RemoteHeapStatistics()
        statistics.heapBlocks = heap.blocks.count + heap.excludedFreeBlocks
        statistics.excludedFreeBlocks = heap.excludedFreeBlocks
        statistics.dyingObjects = scan.dyingObjects
        statistics.copiedBytes = memory.copiedBytes
        statistics.layouts = compiler.layouts.count
        self.init(
            processID: memory.processID, command: memory.command, capturedAt: Date(),
            stopDuration: stoppedFor,
            threads: memory.threads.map { RemoteThread(id: $0.id, name: $0.name) },
            limitations: limitations, statistics: statistics, addresses: scanned.addresses,
            typeOfObject: scanned.layouts, types: types, sizes: scanned.sizes,
            retainCounts: scanned.retainCounts, references: references,
            labels: compiler.labels.labels, holders: holders)
        self.statistics.analysisSeconds = (ContinuousClock.now - started).attachSeconds
    }

    /// Every holder of every object: global variables, thread stacks and registers, and the
    /// strong references its retain count says exist but the heap does not show.
    private static func holders(
        memory: ProcessMemory, table: AddressTable, scanned: ScannedHeap,
        references: ReferenceColumns, layouts: [RemoteLayout]
    ) -> [HeldObject] {
        let roots = RootScan(memory: memory, table: table)
        let globals = roots.globals()
        var strongIn = [UInt32](repeating: 0, count: scanned.addresses.count)
        for (index, target) in references.targets.enumerated()
        where references.ownerships[index] == .strong
            || references.ownerships[index] == .conservative
        {
            strongIn[Int(target)] &+= 1
        }
        var held: [HeldObject] = []
        var demangler = GlobalNames(memory: memory)
        for global in globals {
            strongIn[Int(global.object)] &+= 1
            held.append(
                HeldObject(
                    object: global.object,
                    holder: .globalVariable(name: demangler.name(of: global.slot))))
        }
        let names = Dictionary(memory.threads.map { ($0.id, $0.name) }) { first, _ in first }
        for slot in roots.threads() {
            let name = names[slot.thread] ?? "?"
            held.append(
                HeldObject(
                    object: slot.object,
                    holder: slot.isRegister
                        ? .threadRegisters(thread: slot.thread, name: name)
                        : .threadStack(thread: slot.thread, name: name)))
        }
        for object in scanned.addresses.indices {
            let retained = scanned.retainCounts[object]
            guard retained != UInt32.max, retained > strongIn[object] else { continue }
            let outside = Int(retained - strongIn[object])
            let layout = layouts[Int(scanned.layouts[object])]
            let holder: RemoteHolder
            switch layout.shape {
            case .task: holder = .task
            case .block: holder = .dispatchBlock
            default:
                if layout.isTimer {
                    holder =
                        TimerState.isValid(
                            timer: scanned.addresses[object], layout: layout, memory: memory)
                        ? .scheduledTimer : .foundationTimer
                } else {
                    holder = .outside(references: outside)
                }
            }
            held.append(HeldObject(object: Int32(object), holder: holder))
        }
        return held.sorted {
            $0.object != $1.object ? $0.object < $1.object : $0.holder.rank < $1.holder.rank
        }
    }
}
