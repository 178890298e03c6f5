import Foundation
import Testing

@testable import ProcessAttach

/// The kernel merges adjacent anonymous mappings of one protection, so a mapping glibc made
/// may begin or end with other pages: blocks too large for a heap (mappings of their own), and
/// the mapping a main arena goes on in when `brk` cannot grow it. Checked on real copies of
/// real targets with a region grown by a page of other memory, as a merge leaves it.
@Suite("Heap walk across merged mappings", .timeLimit(.minutes(10)))
struct MergedMappingTests {
    @Test("Mapped blocks after other pages of the same mapping are all found")
    func blocksAfterOtherPagesAreFound() throws {
        let target = try AttachTargets.start("attach-dump-target")
        defer { target.stop() }
        target.send("grow 8")
        _ = try target.waitForLine { $0.hasPrefix("grown ") }
        let memory = try Self.copy(of: target.pid)

        let whole = GlibcHeap(memory)
        let large = whole.blocks.indices.filter { whole.sizes[$0] >= 1 << 20 }.map {
            whole.blocks[$0]
        }
        try #require(large.count >= 8, "\(large.count) blocks of 1 MiB found in the copy")
        // The region of the first of them, one page longer downwards.
        let (merged, original) = try Self.growing(memory, at: large[0], before: true, after: false)

        let walked = GlibcHeap(merged)
        let inRegion = large.filter { original.contains($0) }
        #expect(!inRegion.isEmpty)
        let missed = Set(inRegion).subtracting(walked.blocks)
        #expect(missed.isEmpty, "\(missed.count) of \(inRegion.count) blocks missed in \(original)")
        #expect(walked.blocks.count == whole.blocks.count)
    }

    @Test(
        "A main arena that went on in a mapping merged with others is found and walked whole",
        arguments: [(true, false), (false, true), (true, true)])
    func mainArenaInMergedMapping(before: Bool, after: Bool) throws {
        // Before: a page after glibc's mapping hid the arena list (its top chunk did not end
        // the mapping: "main_arena was not found", in 2 of 30 plain attaches to this fixture),
        // and a page before it made the walk start where no chunk is.
        let target = try AttachTargets.start("attach-brk-blocked", ["2000"])
        let memory = try Self.copy(of: target.pid)
        let whole = GlibcHeap(memory)
        try #require(whole.completeness.isComplete, "\(whole.completeness.problems)")
        let main = try #require(whole.arenas.first { $0.isMain })
        let heap = try #require(memory.mappings.first { $0.path == "[heap]" }).range
        try #require(!heap.contains(main.top), "brk could grow [heap]: the fixture is moot")

        let (merged, _) = try Self.growing(memory, at: main.top, before: before, after: after)
        let walked = GlibcHeap(merged)
        #expect(walked.completeness.isComplete, "\(walked.completeness.problems)")
        #expect(walked.arenas.first { $0.isMain }?.state == main.state)
        #expect(Set(walked.blocks) == Set(whole.blocks))
    }

    /// A copy of `pid`'s memory (the target runs on once it is taken).
    static func copy(of pid: Int32) throws -> ProcessMemory {
        let process = try StoppedProcess(
            processID: pid, options: AttachOptions(maximumStop: .seconds(120)))
        let memory = Result { try process.captureMemory() }
        _ = process.resume()
        return try memory.get()
    }

    /// `memory` with the copied region and the mapping that hold `address` one page longer
    /// downwards and/or upwards, that page holding words that are no chunk header, as another
    /// mapping's would after the kernel merged the two; and the region's range before.
    static func growing(_ memory: ProcessMemory, at address: UInt, before: Bool, after: Bool)
        throws -> (ProcessMemory, Range<UInt>)
    {
        let original = try #require(memory.region(containing: address))
        let lower = original.range.lowerBound - (before ? 4096 : 0)
        let grown = lower..<original.range.upperBound + (after ? 4096 : 0)
        let region = try #require(MemoryRegion(copying: grown))
        let bytes = try #require(region.mutableBase)
        bytes.initializeMemory(
            as: UInt.self, repeating: 0x5A5A_5A5A_5A5A_5A5A, count: grown.count / 8)
        (bytes + Int(original.range.lowerBound - lower)).copyMemory(
            from: original.base, byteCount: original.range.count)
        var mappings = memory.mappings.filter { !$0.range.overlaps(grown) }
        if var mapping = memory.mappings.first(where: { $0.range.contains(address) }) {
            let lowest = min(mapping.range.lowerBound, grown.lowerBound)
            mapping.range = lowest..<max(mapping.range.upperBound, grown.upperBound)
            mappings.append(mapping)
        }
        let merged = ProcessMemory(
            processID: memory.processID, command: memory.command, threads: memory.threads,
            mappings: mappings.sorted { $0.range.lowerBound < $1.range.lowerBound },
            images: memory.images,
            regions: memory.regions.filter { !$0.range.overlaps(grown) } + [region],
            limitations: memory.limitations)
        return (merged, original.range)
    }
}
