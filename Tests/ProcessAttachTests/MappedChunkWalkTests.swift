import Foundation
import Testing

@testable import ProcessAttach

/// Blocks too large for a heap are mappings of their own, and the kernel merges adjacent
/// anonymous mappings of one protection: a region that holds such blocks may begin with other
/// pages. Checked on a real copy of a real target whose payload is 1 MiB arrays, with the
/// region of its blocks grown one page of other memory downwards, as a merge leaves it.
@Suite("Large blocks in a merged mapping", .timeLimit(.minutes(5)))
struct MappedChunkWalkTests {
    @Test("Mapped blocks after other pages of the same mapping are all found")
    func blocksAfterOtherPagesAreFound() throws {
        let target = try AttachTargets.start("attach-dump-target")
        defer { target.stop() }
        target.send("grow 8")
        _ = try target.waitForLine { $0.hasPrefix("grown ") }
        let process = try StoppedProcess(
            processID: target.pid, options: AttachOptions(maximumStop: .seconds(120)))
        let memory = try process.captureMemory()
        _ = process.resume()

        let whole = GlibcHeap(memory)
        let large = whole.blocks.indices.filter { whole.sizes[$0] >= 1 << 20 }.map {
            whole.blocks[$0]
        }
        try #require(large.count >= 8, "\(large.count) blocks of 1 MiB found in the copy")
        // The region of the first of them, one page longer downwards: that page holds words
        // that are no chunk header, as another mapping's would.
        let original = try #require(memory.region(containing: large[0]))
        let grown = (original.range.lowerBound - 4096)..<original.range.upperBound
        let region = try #require(MemoryRegion(copying: grown))
        let bytes = try #require(region.mutableBase)
        bytes.initializeMemory(as: UInt.self, repeating: 0x5A5A_5A5A_5A5A_5A5A, count: 512)
        (bytes + 4096).copyMemory(from: original.base, byteCount: original.range.count)
        var mappings = memory.mappings.filter { !$0.range.overlaps(grown) }
        if var mapping = memory.mappings.first(where: { $0.range.contains(large[0]) }) {
            mapping.range = grown.lowerBound..<mapping.range.upperBound
            mappings.append(mapping)
        }
        let merged = ProcessMemory(
            processID: memory.processID, command: memory.command, threads: memory.threads,
            mappings: mappings.sorted { $0.range.lowerBound < $1.range.lowerBound },
            images: memory.images,
            regions: memory.regions.filter { !$0.range.overlaps(grown) } + [region],
            limitations: memory.limitations)

        let walked = GlibcHeap(merged)
        let inRegion = large.filter { original.range.contains($0) }
        #expect(!inRegion.isEmpty)
        let missed = Set(inRegion).subtracting(walked.blocks)
        #expect(missed.isEmpty, "\(missed.count) of \(inRegion.count) blocks missed in \(grown)")
        #expect(walked.blocks.count == whole.blocks.count)
    }
}
