import HeapCensus
import StackTraces

/// Turns a sampled heap into pprof's messages: one sample per record, its stack's locations
/// from the shared tables (``PprofTables``).
struct PprofBuilder {
    private let heap: SampledHeap
    private var tables = PprofTables()

    init(_ heap: SampledHeap) { self.heap = heap }

    mutating func build() -> PprofProfile {
        symbolicateAll()
        let bytes = tables.string("bytes")
        let count = tables.string("count")
        tables.profile.sampleTypes = [
            "alloc_objects", "alloc_space", "inuse_objects", "inuse_space",
        ]
        .enumerated().map {
            .init(type: tables.string($0.element), unit: $0.offset % 2 == 0 ? count : bytes)
        }
        tables.profile.periodType = .init(type: tables.string("space"), unit: bytes)
        tables.profile.period = Int64(heap.meanInterval)
        tables.profile.defaultSampleType = tables.string("inuse_space")
        tables.profile.timeNanoseconds = heap.timeNanoseconds
        let typeKey = tables.string("type")
        for record in heap.records where record.sampledAllocations > 0 {
            let locations = userStack(record.stack.addresses).map { tables.location(at: $0) }
            let size = Double(record.size)
            let typeName = tables.string(record.typeName)
            tables.profile.samples.append(
                .init(
                    locations: locations,
                    values: [
                        Self.rounded(record.estimatedAllocations),
                        Self.rounded(record.estimatedAllocations * size),
                        Self.rounded(record.estimatedInUseObjects),
                        Self.rounded(record.estimatedInUseBytes),
                    ],
                    labels: [
                        .init(key: typeKey, string: typeName),
                        .init(key: bytes, number: Int64(record.size), numberUnit: bytes),
                    ]))
        }
        tables.putExecutableFirst()
        return tables.profile
    }

    private static func rounded(_ value: Double) -> Int64 {
        value.isFinite ? Int64(value.rounded()) : 0
    }

    /// Looks up every address of every record at once (the symbolicator caches them).
    private mutating func symbolicateAll() {
        var unique = Set<UInt>()
        for record in heap.records { unique.formUnion(record.stack.addresses) }
        let all = StackTrace(addresses: Array(unique)).symbolicated()
        for frame in all { tables.frames[frame.address, default: []].append(frame) }
    }

    /// The stack without the Swift runtime's frames at its allocation end, unless nothing else
    /// is left.
    private func userStack(_ addresses: [UInt]) -> [UInt] {
        let first = addresses.firstIndex { address in
            !(tables.frames[address] ?? []).allSatisfy(Self.isRuntime)
        }
        return first.map { Array(addresses[$0...]) } ?? addresses
    }

    private static func isRuntime(_ frame: StackFrame) -> Bool {
        guard let image = frame.imageName else { return false }
        return image.hasPrefix("libswiftCore.") || image.hasPrefix("libswift_Concurrency.")
    }
}
