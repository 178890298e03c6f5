import Foundation
import HeapGraph
import ObjectGraph
import RuntimeLayouts

/// The heap reader's stages, run one at a time over a captured process's memory that the
/// caller changes word by word: the reader fuzzer's door (`Tests/Fuzzing/ReaderFuzzer`).
///
/// A captured copy is mutable here (the copy only: image files are never written), so a fuzzer
/// can plant what a corrupted or hostile target could (looping lists, fake metadata, huge
/// counts), run one stage, and put the words back. The mirror context is made once, over the
/// images, and shared by the stages that only read types (its caches may keep what earlier
/// inputs planted: a fuzzer replays an input from the start of its batch to reproduce it);
/// ``analyse(budget:)`` makes its own, as an attach does.
///
/// Not thread-safe: use it from one thread.
package final class ReaderStages {
    /// The captured memory the stages read.
    package let memory: ProcessMemory
    private let library: MirrorLibrary
    private var mirror: RemoteMirror
    private var metadata: MirrorMetadata
    /// Inputs on which libswiftRemoteMirror failed (aborted or faulted) and the failure was
    /// contained: the shared context was then made anew; an analysis said so in its report.
    package private(set) var mirrorFailures = 0
    /// The unmutated heap's blocks (user pointers) and their sizes, from one walk.
    package let blocks: [UInt]
    package let sizes: [UInt32]
    /// The unmutated heap's chunks (starts), and its arenas' `malloc_state` addresses.
    package let chunks: [UInt]
    package let arenas: [UInt]
    /// Every heap walked: `[heap]` and the thread arenas' heaps.
    package let heaps: [Range<UInt>]

    /// Stages over `memory`, with the mirror library at `remoteMirrorPath` (nil: found as an
    /// attach finds it).
    package init(memory: ProcessMemory, remoteMirrorPath: String?) throws(AttachError) {
        self.memory = memory
        library = try MirrorLibrary.load(path: remoteMirrorPath)
        mirror = try RemoteMirror(library: library, memory: memory)
        metadata = MirrorMetadata(mirror: mirror, memory: memory)
        let heap = GlibcHeap(memory)
        blocks = heap.blocks
        sizes = heap.sizes
        chunks = heap.chunkStarts
        arenas = heap.arenas.map(\.state)
        heaps = heap.heaps
    }

    /// Puts the guard that contains libswiftRemoteMirror's aborts and faults back in front of
    /// SIGABRT, SIGSEGV and SIGBUS (a fuzzer's child installs its own reporting handlers after
    /// the context was made: the guard passes what is not the library's on to them).
    package func guardTheMirror() {
        RemoteMirror.installGuard(library: library)
    }

    /// After a stage: when the shared context failed, counts it and makes a new one (the one
    /// that failed is never called again).
    private func renewTheMirrorIfItFailed() {
        guard mirror.failure != nil,
            let fresh = try? RemoteMirror(library: library, memory: memory)
        else { return }
        mirrorFailures += 1
        mirror = fresh
        metadata = MirrorMetadata(mirror: fresh, memory: memory)
    }

    /// Writes `value` at target address `address` in the copy; returns the word it replaced,
    /// or nil (nothing written) when the address is not in a copied region.
    @discardableResult
    package func write(_ value: UInt, at address: UInt) -> UInt? {
        guard let region = memory.region(containing: address), region.isCopy,
            let base = region.mutableBase, region.range.upperBound - address >= 8
        else { return nil }
        let local = base + Int(address - region.range.lowerBound)
        let old = local.loadUnaligned(as: UInt.self)
        local.storeBytes(of: value, as: UInt.self)
        return old
    }

    /// The word at `address` in the copy (or an image file's view), or nil.
    package func word(at address: UInt) -> UInt? { memory.word(at: address) }

    /// The copied regions' ranges (where ``write(_:at:)`` writes), by address.
    package var copiedRanges: [Range<UInt>] { memory.copiedRegions.map(\.range) }

    /// Walks glibc's heaps within `budget`; returns the blocks found in use, the walk's
    /// problems and the other limitations.
    package func walkHeap(seconds: Double) -> (blocks: Int, limitations: [String], gaveUp: Bool) {
        let budget = Self.budget(seconds)
        let heap = GlibcHeap(memory, budget: budget)
        return (heap.blocks.count, heap.limitations, budget.isSpent)
    }

    /// The name and problem of the layout compiled for the metadata word `word` (the first
    /// word of the block `sample`), with the shared mirror context and fresh caches; nil when
    /// the word is not accepted as metadata.
    package func compileLayout(metadata word: UInt, sample: UInt) -> (
        name: String, problem: String?
    )? {
        metadata.forgetCaches()
        defer { renewTheMirrorIfItFailed() }
        let table = LayoutTable(source: metadata)
        guard let index = table.index(ofMetadata: word, sample: sample) else { return nil }
        let layout = table.layout(at: index)
        return (layout.typeName, layout.problem)
    }

    /// Whether the last ``compileLayout(metadata:sample:)`` refused `word` because a type it
    /// leads the mirror to failed the metadata check (planted metadata, which a fuzzer copies).
    package func wasRefusedByTheCheck(_ word: UInt) -> Bool {
        metadata.refusedMetadata.contains(word)
    }

    /// Reads `blocks` (user pointers, with their `sizes`) as an attach reads the heap's, with
    /// the shared mirror context and fresh caches, and builds their snapshot (holders named
    /// by the objects only: globals and stacks are read by ``analyse(_:seconds:memoryLimit:)``,
    /// whose scan of every image's data costs a thousand times this stage).
    package func scan(blocks: [UInt], sizes: [UInt32], seconds: Double) -> (
        snapshot: HeapSnapshot, gaveUp: Bool
    ) {
        metadata.forgetCaches()
        defer { renewTheMirrorIfItFailed() }
        let budget = Self.budget(seconds)
        let table = LayoutTable(source: metadata)
        var scanner = ProcessScan(memory: memory, table: table, budget: budget)
        let scan = scanner.scan(blocks: blocks, sizes: sizes)
        let process = HeapProcess(processID: memory.processID, command: memory.command)
        let snapshot = HeapSnapshot(
            scan: scan, roots: HeapOnlyRoots(roots: ProcessRoots(memory: memory)), process: process,
            limitations: scanner.limitations, statistics: HeapReadStatistics())
        return (snapshot, budget.isSpent)
    }

    /// The whole analysis an attach runs on `memory` (or on `other`, a changed copy of it),
    /// with a mirror context of its own.
    package func analyse(_ other: ProcessMemory? = nil, seconds: Double, memoryLimit: Int? = nil)
        throws(AttachError) -> HeapSnapshot
    {
        let memory = other ?? self.memory
        let budget = AnalysisBudget(
            time: .milliseconds(Int64(seconds * 1000)),
            memory: memoryLimit ?? (2 * memory.copiedBytes + (1 << 30)))
        let snapshot = try HeapSnapshot(memory, stoppedFor: nil, library: library, budget: budget)
        if snapshot.limitations.contains(where: { $0.hasPrefix(RemoteMirror.failurePrefix) }) {
            mirrorFailures += 1
        }
        return snapshot
    }

    /// A copy of the memory without the bytes of `range` past `end` (a region cut short, as a
    /// copy limit or an unreadable page cuts one); nil when no copied region starts at
    /// `range.lowerBound`.
    package func truncating(regionAt start: UInt, to end: UInt) -> ProcessMemory? {
        guard let region = memory.regions.first(where: { $0.range.lowerBound == start }),
            region.isCopy, end > start, end < region.range.upperBound,
            let cut = MemoryRegion(copying: start..<end), let bytes = cut.mutableBase
        else { return nil }
        bytes.copyMemory(from: region.base, byteCount: Int(end - start))
        return ProcessMemory(
            processID: memory.processID, command: memory.command, threads: memory.threads,
            mappings: memory.mappings, images: memory.images,
            regions: memory.regions.filter { $0 !== region } + [cut],
            limitations: memory.limitations)
    }

    private static func budget(_ seconds: Double) -> AnalysisBudget {
        AnalysisBudget(time: .milliseconds(Int64(seconds * 1000)), memory: 1 << 31)
    }
}

/// A process's roots without its globals and stacks (the scan stage's: the objects' own
/// holders only).
private struct HeapOnlyRoots: HeapRoots {
    let roots: ProcessRoots

    func forEachGlobal(
        holding index: AddressIndex, within bounds: ClosedRange<UInt>,
        _ body: (UInt, Int32) -> Void
    ) {}

    func variable(containing slot: UInt) -> (start: UInt, name: String) {
        roots.variable(containing: slot)
    }

    func forEachStackHolder(holding index: AddressIndex, _ body: (Int32, Int32) -> Void) {}

    var threadNames: [Int32: String] { roots.threadNames }

    func thread(object: UInt, pthread: UInt) -> (isRunning: Bool, name: String?) {
        roots.thread(object: object, pthread: pthread)
    }

    var memory: any MemoryReader { roots.memory }

    var unattributed: UnattributedReferences { roots.unattributed }
}
