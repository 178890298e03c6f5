import HeapCensus
import Testing

/// A small object of a type no other test makes (32 bytes: a header and two words).
final class SampledSmall {
    var first = 0
    var second = 0
}

/// Objects of chosen sizes: a header, then `capacity` bytes.
final class SampledBlob: ManagedBuffer<Int, UInt8> {
    static func make(bytes: Int) -> SampledBlob {
        unsafeDowncast(
            SampledBlob.create(minimumCapacity: bytes) { _ in bytes }, to: SampledBlob.self)
    }
}

/// What the pattern keeps alive until the test ends.
nonisolated(unsafe) var sampledSmall: [SampledSmall] = []
nonisolated(unsafe) var sampledBlobs: [SampledBlob] = []

/// The sampled mode, used as a production process would: public API only.
@Suite(.serialized) struct SampledHeapTests {
    @Test func theEstimatedLiveBytesOfAKnownPatternAreWithinTenPercentOfTheTruth() throws {
        try SamplingTestLock.withLock { try estimateAKnownPattern() }
    }

    private func estimateAKnownPattern() throws {
        // 1 KiB between samples on average: about 6,000 samples of the small objects, 6,000 of
        // the 1,000-byte blobs and every 100,000-byte blob, so each estimate's standard error
        // is 1-2 % and 10 % is many of them.
        try #require(HeapCensus.startSampling(meanInterval: 1024))
        defer { HeapCensus.stopSampling() }
        let before = HeapCensus.sampledHeap()
        sampledSmall = (0..<200_000).map { _ in SampledSmall() }
        sampledBlobs = (0..<10_000).map { _ in SampledBlob.make(bytes: 1_000) }
        sampledBlobs += (0..<100).map { _ in SampledBlob.make(bytes: 100_000) }
        // Freed blocks are subtracted: made and dropped, they must not count.
        for _ in 0..<50_000 { _ = SampledSmall() }
        let growth = HeapCensus.sampledHeap().growth(since: before)
        defer {
            sampledSmall = []
            sampledBlobs = []
        }

        let small = growth.filter { $0.typeName.hasSuffix("SampledSmall") }
        let blobs = growth.filter { $0.typeName.hasSuffix("SampledBlob") }
        let smallObjects = small.reduce(0) { $0 + $1.objects }
        let blobObjects = blobs.reduce(0) { $0 + $1.objects }
        #expect(abs(smallObjects / 200_000 - 1) < 0.10, "estimated \(smallObjects) of 200,000")
        #expect(abs(blobObjects / 10_100 - 1) < 0.10, "estimated \(blobObjects) of 10,100")

        // The truth in bytes: the sizes the runtime asked for, read from the records (a size
        // is exact; only counts are estimated).
        let heap = HeapCensus.sampledHeap()
        let smallSize = try #require(
            heap.records.first { $0.typeName.hasSuffix("SampledSmall") }?.size)
        let blobSizes = heap.records.filter { $0.typeName.hasSuffix("SampledBlob") }.map(\.size)
        let mediumSize = try #require(blobSizes.filter { $0 < 10_000 }.max())
        let largeSize = try #require(blobSizes.max())
        let truth = Double(200_000 * smallSize + 10_000 * mediumSize + 100 * largeSize)
        let estimate = (small + blobs).reduce(0) { $0 + $1.bytes }
        #expect(abs(estimate / truth - 1) < 0.10, "estimated \(estimate) bytes of \(truth)")
        #expect(smallSize >= 32 && mediumSize >= 1_000 && largeSize >= 100_000)
    }

    @Test func aSampleCarriesTheStackAndTypeOfItsAllocation() throws {
        // Every allocation sampled: the interval of 1 byte.
        let (before, blob, after) = try SamplingTestLock.withLock {
            () throws -> (SampledHeap, SampledBlob, SampledHeap) in
            try #require(HeapCensus.startSampling(meanInterval: 1))
            defer { HeapCensus.stopSampling() }
            let before = HeapCensus.sampledHeap()
            let blob = makeBlobForTheStack()
            return (before, blob, HeapCensus.sampledHeap())
        }
        let grew = after.growth(since: before)
        let mine = try #require(grew.first { $0.typeName.hasSuffix("SampledBlob") })
        #expect(mine.objects.rounded() == 1)
        let names = mine.stack.symbolicated().compactMap(\.function)
        #expect(names.contains { $0.contains("makeBlobForTheStack") }, "\(names.prefix(6))")
        #expect(mine.description.contains("SampledBlob at SampledHeapTests.swift:"), "\(mine)")
        withExtendedLifetime(blob) {}
        #expect(HeapCensus.liveSampleCount > 0 && HeapCensus.sampleTableBytes > 0)
    }
}

@inline(never)
private func makeBlobForTheStack() -> SampledBlob { SampledBlob.make(bytes: 4_000) }
