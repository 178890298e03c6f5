import Foundation
import ObjectGraph
import RuntimeLayouts

extension RemoteHeapSnapshot {
    /// Stops process `processID`, copies its memory, lets it go, and finds its live Swift
    /// objects, their references and their holders in the copy.
    ///
    /// The target is stopped only while its memory is copied (a few milliseconds for a small
    /// program; about a tenth of a second for a million objects); the analysis runs after.
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
        let (graph, index) = Self.makeGraph(
            scan.heap, layouts: compiler.layouts,
            roles: compiler.roles, memory: memory)

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
        statistics.heapWalk = heap.completeness
        statistics.dyingObjects = scan.dyingObjects
        statistics.copiedBytes = memory.copiedBytes
        statistics.layouts = compiler.layouts.count
        statistics.analysisSeconds = (ContinuousClock.now - started).attachSeconds
        self.init(
            graph: graph, objectCount: scan.heap.addresses.count, addressIndex: index,
            processID: memory.processID, command: memory.command, capturedAt: Date(),
            stopDuration: stoppedFor,
            threads: memory.threads.map { RemoteThread(id: $0.id, name: $0.name) },
            limitations: limitations, statistics: statistics)
    }

    init(
        graph: CompactGraph, objectCount: Int, addressIndex: AddressIndex, processID: Int32,
        command: String, capturedAt: Date, stopDuration: Duration?, threads: [RemoteThread],
        limitations: [String], statistics: RemoteHeapStatistics
    ) {
        self.graph = graph
        self.objectCount = objectCount
        self.addressIndex = addressIndex
        self.processID = processID
        self.command = command
        self.capturedAt = capturedAt
        self.stopDuration = stopDuration
        self.threads = threads
        self.limitations = limitations
        self.statistics = statistics
    }

    /// Builds the graph of a scan: objects become the first nodes (numbered as the scan found
    /// them), the words that are live objects' addresses become edges found in the heap (roles
    /// that depend on the target named after it, contexts that only forward to a closure
    /// looked through, as the census reads them), then the holders become root nodes
    /// (RemoteHeapSnapshot+Holders.swift).
    private static func makeGraph(
        _ scanned: ScannedHeap, layouts: [RemoteLayout], roles: InternedRoles,
        memory: ProcessMemory
    ) -> (CompactGraph, AddressIndex) {
        let index = AddressIndex(scanned.addresses)
        var builder = CompactGraph.Builder()
        builder.roles = roles  // the compiler's numbers stay valid
        let typeNumbers = layouts.map { builder.intern($0.typeName) }
        let count = scanned.addresses.count
        var kinds = scanned.layouts.map { layouts[Int($0)].nodeKind }
        var types = scanned.layouts.map { typeNumbers[Int($0)] }

        var naming = RoleNaming(roles: roles)
        var edges = EdgeColumns()
        edges.reserve(scanned.words.count)
        var boxes: [Int32] = []
        for reference in scanned.words.indices {
            guard let target = index.index(of: scanned.words[reference]) else { continue }
            let kind = scanned.kinds[reference]
            if kind & ScannedHeap.boxBit != 0 { boxes.append(target) }
            let role = naming.number(
                scanned.roles[reference],
                isFunctionContext: kind & ScannedHeap.functionContextBit != 0,
                targetKind: kinds[Int(target)], targetLayout: scanned.layouts[Int(target)],
                targetName: { layouts[Int(scanned.layouts[Int(target)])].typeName },
                builder: &builder)
            edges.append(
                source: scanned.sources[reference], target: UInt32(target),
                flags: CompactGraph.flags(Ownership(byte: kind & 7), .heap), role: role)
        }
        edges.lookThroughForwardingContexts(
            kinds: kinds, layoutOf: scanned.layouts, layouts: layouts, builder: &builder)
        // Boxes the compiler made for values held out of line (an existential's value too large
        // for its buffer) look like contexts or bare boxes: named after what they hold.
        for box in boxes {
            let layout = layouts[Int(scanned.layouts[Int(box)])]
            guard layout.shape == .closureContext || layout.shape == .box else { continue }
            kinds[Int(box)] = .box
            types[Int(box)] = builder.intern(layout.boxName)
        }

        let holders = HolderScan(
            memory: memory, index: index, scanned: scanned, layouts: layouts, edges: edges)
        builder.addNodes(
            kinds: kinds, typeNameNumbers: types, addresses: scanned.addresses,
            sizes: scanned.sizes)
        builder.appendEdges(
            sources: edges.sources, targets: edges.targets, flags: edges.flags,
            roles: edges.roles, tags: [])
        holders.add(to: &builder, objectCount: count)
        // Objects keep their numbers: a node's number is its RemoteObjectID.
        return (builder.build(numberingForLocality: false), index)
    }
}

/// Edge columns, as the compact graph stores them.
struct EdgeColumns {
    var sources: [UInt32] = []
    var targets: [UInt32] = []
    var flags: [UInt8] = []
    var roles: [UInt32] = []

    mutating func reserve(_ count: Int) {
        sources.reserveCapacity(count)
        targets.reserveCapacity(count)
        flags.reserveCapacity(count)
        roles.reserveCapacity(count)
    }

    mutating func append(source: UInt32, target: UInt32, flags: UInt8, role: UInt32) {
        sources.append(source)
        targets.append(target)
        self.flags.append(flags)
        roles.append(role)
    }
}

/// Roles that depend on the target, named after it as the census names them: a word read
/// conservatively where a capture is expected (a block's, an undecodable closure context's)
/// becomes `captures Owner`; a closure whose context is its only captured object becomes a
/// capture of that object (`ReferenceRole.capturing(_:)`).
struct RoleNaming {
    let roles: InternedRoles
    /// The compiler's number of `ObjectLayout.targetNamedCapture`, if any slot has it.
    let capturedRole: UInt32?
    /// Named roles, by compiler role (high half) and target layout (low half).
    private var named: [UInt64: UInt32] = [:]

    init(roles: InternedRoles) {
        self.roles = roles
        capturedRole = roles.number(of: ObjectLayout.targetNamedCapture)
    }

    /// The graph's number of compiler role `role` for a reference to a `targetKind` node of
    /// layout `targetLayout`, named `targetName`.
    mutating func number(
        _ role: UInt32, isFunctionContext: Bool, targetKind: CompactGraph.NodeKind,
        targetLayout: Int32, targetName: () -> String, builder: inout CompactGraph.Builder
    ) -> UInt32 {
        let dependsOnTarget =
            (isFunctionContext && targetKind != .closure) || role == capturedRole
        guard dependsOnTarget else { return role }
        let key = UInt64(role) << 32 | UInt64(UInt32(bitPattern: targetLayout))
        if let known = named[key] { return known }
        let name = targetKind == .closure ? "a closure" : TypeNames.withoutModule(targetName())
        let number = builder.intern(
            role == capturedRole ? .capture(name: name) : roles[role].capturing(name))
        named[key] = number
        return number
    }
}
