import Foundation
import RuntimeLayouts
import Testing

@testable import ProcessAttach

/// Every word read from a target is untrusted (issue 32): links that loop end, layouts that
/// would read past a block are refused, and an analysis past its time or memory budget gives
/// up with a reason, checked on real copies of real targets with words planted in the copy.
@Suite(
    "Untrusted words: loops end, reads stay in the copy, budgets give up", .timeLimit(.minutes(10)))
struct UntrustedWordsTests {
    /// `memory` with the word at `address` replaced by `value`, in a copy of its region (the
    /// captured memory other tests read is left as it is).
    static func planting(_ value: UInt, at address: UInt, in memory: ProcessMemory) throws
        -> ProcessMemory
    {
        let original = try #require(memory.region(containing: address))
        let region = try #require(MemoryRegion(copying: original.range))
        let bytes = try #require(region.mutableBase)
        bytes.copyMemory(from: original.base, byteCount: original.range.count)
        (bytes + Int(address - original.range.lowerBound)).storeBytes(of: value, as: UInt.self)
        return ProcessMemory(
            processID: memory.processID, command: memory.command, threads: memory.threads,
            mappings: memory.mappings, images: memory.images,
            regions: memory.regions.filter { $0 !== original } + [region],
            limitations: memory.limitations)
    }

    @Test("A heap_info chain that loops back on itself walks each heap once")
    func heapChainLoop() throws {
        let memory = try HeapWalkCompletenessTests.captured.get()
        let whole = GlibcHeap(memory)
        let arena = try #require(whole.arenas.first { $0.heaps.count == 2 }, "\(whole.arenas)")
        // The newest heap's `prev` names the newest heap itself.
        let newest = arena.heaps[0].base
        let copy = try Self.planting(newest, at: newest + 8, in: memory)
        let heap = GlibcHeap(copy)
        let looped = try #require(heap.arenas.first { $0.state == arena.state })
        #expect(looped.heaps.map(\.base) == arena.heaps.map(\.base))
        #expect(heap.completeness.heapsWalked == whole.completeness.heapsWalked)
        #expect(heap.blocks == whole.blocks)
    }

    @Test("An arena list that never comes back to main_arena is not taken for glibc's list")
    func arenaListLoop() throws {
        let memory = try HeapWalkCompletenessTests.captured.get()
        let whole = GlibcHeap(memory)
        let thread = try #require(whole.arenas.first { !$0.isMain })
        // The thread arena's `next` names itself: the list loops without main_arena.
        let copy = try Self.planting(
            thread.state, at: thread.state + ArenaReader.nextOffset, in: memory)
        let heap = GlibcHeap(copy)
        #expect(heap.completeness.problems.contains(.arenaListNotFound))
        // Its heaps are still found from their `heap_info`, and every block with them.
        #expect(heap.arenas.contains { $0.state == thread.state })
        #expect(heap.blocks.count >= whole.blocks.count - 1)
    }

    @Test("A walk past its time budget stops and says why")
    func timeBudgetSpent() throws {
        let memory = try HeapWalkCompletenessTests.captured.get()
        let budget = AnalysisBudget(time: .zero, memory: .max)
        let heap = GlibcHeap(memory, budget: budget)
        #expect(budget.isSpent)
        #expect(budget.reason?.hasPrefix("the analysis took longer than") == true)
        #expect(heap.blocks.count < GlibcHeap(memory).blocks.count)
    }

    @Test("An analysis that would need more memory than allowed gives up with a reason")
    func memoryBudgetSpent() throws {
        let target = try AttachTargets.start("attach-many", ["50000"])
        let options = AttachOptions(maximumStop: .seconds(60), maximumAnalysisMemory: 1 << 20)
        #expect {
            _ = try HeapSnapshot.capture(processID: target.pid, options: options)
        } throws: { error in
            guard case .gaveUp(let pid, let reason) = error as? AttachError else { return false }
            return pid == target.pid && reason.contains("would need more than 1.0 MiB")
        }
        #expect(target.isRunningUntraced)
        #expect(
            AttachError.gaveUp(processID: 7, reason: "why").description
                == "process 7: gave up: why; the process was let go, nothing was reported")
    }

    @Test("A layout that would read past its block, or past an element, is never used")
    func layoutsReadInsideTheirBlocks() {
        typealias Extent = ProcessScan.Extent
        let words = [Extent(offset: 16, size: 8), Extent(offset: 40, size: 8)]
        #expect(ProcessScan.minimumSize(isBlock: false, fields: words, regions: []) == 48)
        // A dynamic value (an enum's 9 bytes) counts whole.
        #expect(
            ProcessScan.minimumSize(
                isBlock: false, fields: [Extent(offset: 24, size: 9)], regions: []) == 33)
        let negative = words + [Extent(offset: -8, size: 8)]
        #expect(ProcessScan.minimumSize(isBlock: false, fields: negative, regions: []) == .max)
        // An element whose slot lies past its stride would read past the block's end.
        let counting = ElementRegion.Counting.prefix(countOffset: 16, start: 32)
        let past = [(counting, 8, [Extent(offset: 8, size: 8)])]
        #expect(ProcessScan.minimumSize(isBlock: false, fields: [], regions: past) == .max)
        let inside = [(counting, 8, [Extent(offset: 0, size: 8)])]
        #expect(ProcessScan.minimumSize(isBlock: false, fields: [], regions: inside) == 24)
        let hashed = ElementRegion.Counting.hashed(
            scaleOffset: 32, bitmapOffset: 64, baseOffset: 56)
        let set = [(hashed, 16, [Extent(offset: 0, size: 8)])]
        #expect(ProcessScan.minimumSize(isBlock: false, fields: [], regions: set) == 64)
        #expect(ProcessScan.minimumSize(isBlock: true, fields: [], regions: []) == 32)
    }
}
