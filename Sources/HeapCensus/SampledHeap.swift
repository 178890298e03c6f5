import StackTraces

#if canImport(Glibc)
import Glibc
import RetainGraphUtilities
#endif

/// What the sampled mode saw: every sample taken (live and freed), aggregated by stack, type and
/// size, with estimates of the whole program's allocations scaled as Go's heap profiles scale.
///
/// An allocation of `size` bytes is sampled with probability 1 − e^(−size / interval), so each
/// sample stands for 1 / (1 − e^(−size / interval)) allocations (Go's `scaleHeapSample`, applied
/// per size): the estimates are unbiased, and grow more precise with the number of samples.
///
/// ```swift
/// let before = HeapCensus.sampledHeap()
/// serveRequests()
/// for growth in HeapCensus.sampledHeap().growth(since: before).prefix(3) {
///     print(growth)   // "+1.2 MiB in 12,034 Session at SessionTable.swift:31"
/// }
/// ```
public struct SampledHeap: Sendable {
    /// What kind of block a record counts.
    public enum Kind: String, Sendable, Hashable {
        /// A class instance, closure context, box or collection storage (`swift_allocObject`).
        case object
        /// Memory from `UnsafeMutableRawPointer.allocate` and the like (`swift_slowAlloc`).
        case rawMemory
        /// An async task.
        case task
    }

    /// The samples of one stack, type and size.
    public struct Record: Sendable, Hashable {
        /// The allocation's stack, innermost first, from the frame that called the runtime's
        /// allocating function (the allocating initializer, or your code when inlined).
        public let stack: StackTrace
        /// The census's name for the type (``Kind/rawMemory`` and ``Kind/task`` are named so).
        public let typeName: String
        /// What kind of block it is.
        public let kind: Kind
        /// The size asked for, in bytes.
        public let size: Int
        /// Samples taken.
        public let sampledAllocations: Int
        /// Samples taken whose blocks were freed since.
        public let sampledFrees: Int
        /// The estimated allocations of the whole program at this stack and size.
        public let estimatedAllocations: Double
        /// The estimated frees of the whole program's allocations at this stack and size.
        public let estimatedFrees: Double

        /// Samples still alive.
        public var sampledInUse: Int { sampledAllocations - sampledFrees }
        /// Estimated live objects of this record.
        public var estimatedInUseObjects: Double { estimatedAllocations - estimatedFrees }
        /// Estimated live bytes of this record.
        public var estimatedInUseBytes: Double { estimatedInUseObjects * Double(size) }
        /// Estimated bytes allocated since sampling began.
        public var estimatedAllocatedBytes: Double { estimatedAllocations * Double(size) }
    }

    /// The records, heaviest estimated live bytes first.
    public let records: [Record]
    /// The mean sampling interval when this was read, in bytes.
    public let meanInterval: Int
    /// When this was read: nanoseconds since 1970 (`CLOCK_REALTIME`).
    public let timeNanoseconds: Int64

    /// Creates a sampled heap from records (for tests and for merging).
    ///
    /// - Parameters:
    ///   - records: The records.
    ///   - meanInterval: The mean sampling interval they were taken at.
    ///   - timeNanoseconds: When they were read, in nanoseconds since 1970.
    public init(records: [Record], meanInterval: Int, timeNanoseconds: Int64) {
        self.records = records.sorted { $0.estimatedInUseBytes > $1.estimatedInUseBytes }
        self.meanInterval = meanInterval
        self.timeNanoseconds = timeNanoseconds
    }

    /// The estimated live bytes of the whole program's Swift heap.
    public var estimatedInUseBytes: Double { records.reduce(0) { $0 + $1.estimatedInUseBytes } }
    /// The estimated live blocks of the whole program's Swift heap.
    public var estimatedInUseObjects: Double {
        records.reduce(0) { $0 + $1.estimatedInUseObjects }
    }

    /// How many allocations one sample of `size` bytes stands for at `interval`:
    /// 1 / (1 − e^(−size / interval)).
    ///
    /// - Parameters:
    ///   - size: The allocation's size in bytes.
    ///   - interval: The mean sampling interval in bytes.
    /// - Returns: The weight, at least 1.
    public static func weight(size: Int, interval: Int) -> Double {
        guard size > 0, interval > 1 else { return 1 }
        return -1 / expm1(-Double(size) / Double(interval))
    }

    /// Reads the sampled mode's tables (``HeapCensus/sampledHeap()``).
    static func read() -> SampledHeap {
        CensusDoor.internally {
            let (buckets, words) = CensusDoor.readSamples()
            var time = timespec()
            clock_gettime(CLOCK_REALTIME, &time)
            var merged: [MergeKey: Record] = [:]
            var stacks: [Int: StackTrace] = [:]
            for bucket in buckets {
                let stack = stacks[bucket.stackOffset] ?? Self.stack(at: bucket.stackOffset, words)
                stacks[bucket.stackOffset] = stack
                let kind: Kind
                switch bucket.kind {
                case .object: kind = .object
                case .raw: kind = .rawMemory
                case .task: kind = .task
                }
                let name = CensusTypeNames.name(kind: kind, metadata: bucket.metadata)
                let weight = weight(size: bucket.size, interval: bucket.interval)
                let key = MergeKey(stack: bucket.stackOffset, typeName: name, size: bucket.size)
                let old = merged[key]
                merged[key] = Record(
                    stack: stack, typeName: name, kind: kind, size: bucket.size,
                    sampledAllocations: (old?.sampledAllocations ?? 0) + bucket.allocations,
                    sampledFrees: (old?.sampledFrees ?? 0) + bucket.frees,
                    estimatedAllocations: (old?.estimatedAllocations ?? 0)
                        + Double(bucket.allocations) * weight,
                    estimatedFrees: (old?.estimatedFrees ?? 0) + Double(bucket.frees) * weight)
            }
            return SampledHeap(
                records: Array(merged.values), meanInterval: CensusDoor.samplingInterval,
                timeNanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
        }
    }

    private struct MergeKey: Hashable {
        var stack: Int
        var typeName: String
        var size: Int
    }

    private static func stack(at offset: Int, _ words: [UInt]) -> StackTrace {
        guard offset < words.count else { return .empty }
        let depth = Int(words[offset])
        let end = min(offset + 1 + depth, words.count)
        return StackTrace(addresses: Array(words[(offset + 1)..<end]))
    }
}
