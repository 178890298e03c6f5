import Foundation
import HeapGraph
import ObjectGraph
import RetainGraphUtilities
import RuntimeLayouts

extension HeapSnapshot {
    /// Stops process `processID`, copies its memory, lets it go, and reads its live Swift
    /// objects, their references and their holders in the copy, with no RetainGraph code in the
    /// target.
    ///
    /// The target is stopped only while its memory is copied (a few milliseconds for a small
    /// program; a few tens of milliseconds for a million objects); the analysis runs after. It
    /// walks glibc's heaps in the copy, keeps the blocks in use whose first word is Swift
    /// metadata of one of the target's images, reads their references with the layouts the
    /// toolchain's remote mirror describes (typed fields, captures, enum payloads,
    /// existentials, collection elements), and its roots from global variables, thread stacks
    /// and registers, and the holders objects name (a `Task`, a `Foundation.Timer`, a block
    /// libdispatch keeps, a running `Foundation.Thread`).
    ///
    /// ```swift
    /// let heap = try HeapSnapshot.capture(processID: pid)
    /// print(heap.summary)
    /// ```
    ///
    /// - Parameters:
    ///   - processID: The target: a running Swift program (any build, nothing linked in).
    ///   - options: The stop's limits, and where the remote mirror library is.
    /// - Returns: The snapshot; its ``/HeapGraph/HeapProcess/stopDuration`` says how long the target was
    ///   stopped.
    /// - Throws: An ``AttachError``; whatever happens, the target runs again before it is
    ///   thrown.
    /// - Complexity: O(*m*) to copy *m* bytes of writable memory while stopped, then O(*b* +
    ///   *r*) for *b* heap blocks holding *r* references.
    public static func capture(processID: Int32, options: AttachOptions = AttachOptions())
        throws(AttachError) -> HeapSnapshot
    {
        // Loaded before the stop: a missing library must not cost the target a stop.
        let library = try MirrorLibrary.load(path: options.remoteMirrorPath)
        let process = try StoppedProcess(processID: processID, options: options)
        let memory = try process.captureMemory()
        let stop = process.resume()
        return try HeapSnapshot(
            memory, stoppedFor: stop, library: library,
            budget: options.analysisBudget(copiedBytes: memory.copiedBytes))
    }

    /// Reads the live Swift objects, references and holders in memory captured from a stopped
    /// process (``StoppedProcess/captureMemory()``).
    ///
    /// - Parameters:
    ///   - memory: What was read while the target was stopped.
    ///   - stoppedFor: How long it was stopped, if the caller measured it
    ///     (``StoppedProcess/resume()`` returns it).
    ///   - options: Where the remote mirror library is (``AttachOptions/remoteMirrorPath``),
    ///     and the analysis's limits (``AttachOptions/maximumAnalysis``,
    ///     ``AttachOptions/maximumAnalysisMemory``).
    /// - Throws: ``AttachError/remoteMirrorUnavailable(reason:)``;
    ///   ``AttachError/gaveUp(processID:reason:)`` when the analysis exceeded its limits.
    public init(
        _ memory: ProcessMemory, stoppedFor: Duration? = nil,
        options: AttachOptions = AttachOptions()
    ) throws(AttachError) {
        let library = try MirrorLibrary.load(path: options.remoteMirrorPath)
        try self.init(
            memory, stoppedFor: stoppedFor, library: library,
            budget: options.analysisBudget(copiedBytes: memory.copiedBytes))
    }

    /// Reads `memory` within `budget`: every stage polls it and stops once it is spent, and
    /// the reading then throws instead of returning a snapshot of part of the heap.
    init(
        _ memory: ProcessMemory, stoppedFor: Duration?, library: MirrorLibrary,
        budget: AnalysisBudget
    ) throws(AttachError) {
        func checkBudget() throws(AttachError) {
            if let reason = budget.reason {
                throw .gaveUp(processID: memory.processID, reason: reason)
            }
        }
        let started = ContinuousClock.now
        var statistics = HeapReadStatistics()
        var heapLimitations: [String] = []
        var blocks: [UInt] = []
        var sizes: [UInt32] = []
        do {
            // The walk in a scope of its own: only its blocks outlive it, not its lists of
            // every chunk (16 bytes a chunk).
            let heap = GlibcHeap(memory, budget: budget)
            blocks = heap.blocks
            sizes = heap.sizes
            statistics.heapBlocks = heap.blocks.count + heap.excludedFreeBlocks
            statistics.excludedFreeBlocks = heap.excludedFreeBlocks
            statistics.heapWalk = heap.completeness
            heapLimitations = heap.limitations
        }
        try checkBudget()
        let mirror = try RemoteMirror(library: library, memory: memory, budget: budget)
        let table = LayoutTable(source: MirrorMetadata(mirror: mirror, memory: memory))
        var scanner = ProcessScan(memory: memory, table: table, budget: budget)
        // Handed over: the scan lets the blocks go once it has found the objects among them.
        let scan = scanner.scan(blocks: consume blocks, sizes: consume sizes)
        try checkBudget()
        statistics.dyingObjects = scanner.dyingObjects
        statistics.copiedBytes = memory.copiedBytes
        statistics.layouts = scan.layouts.count
        // The names are the target's own text (`/proc/PID/comm`): escaped.
        let process = HeapProcess(
            processID: memory.processID, command: PrintableText.escaped(memory.command),
            threads: memory.threads.map {
                HeapThread(id: $0.id, name: PrintableText.escaped($0.name))
            },
            capturedAt: memory.capturedAt.map(Date.init(timeIntervalSince1970:)) ?? Date(),
            stopDuration: stoppedFor)
        let limitations = memory.limitations + heapLimitations + scanner.limitations
        var reported = limitations + (mirror.failure.map { [$0] } ?? [])
        // Handed over whole, so that each of its columns goes once read: the scan's columns
        // and the graph's are never held together.
        var resolved = ResolvedScan(consume scan)
        if let failure = mirror.failure, !reported.contains(failure) {
            // The mirror failed while the dynamic values were decoded (a value whose type only
            // it tells): decoded again, with the mirror left alone, so that the graph is the
            // one the report's limitation describes. Decoding is the only step of the build
            // that asks the mirror, and the scan's values stay until the build takes them.
            resolved.decodeDynamicValuesAgain()
            reported = limitations + [failure]
        }
        self.init(
            resolved: consume resolved, roots: ProcessRoots(memory: memory), process: process,
            limitations: reported, statistics: statistics, keepsAddressIndex: false)
        try checkBudget()
        self.statistics.analysisSeconds = (ContinuousClock.now - started).seconds
    }
}
