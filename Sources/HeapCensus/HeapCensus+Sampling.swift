/// The sampled mode: a heap profile a production process can afford.
///
/// Where the census records every object (about 1.4× the cost of an allocation), the sampled
/// mode keeps one allocation per ``samplingInterval`` bytes on average, with its whole stack and
/// its type, until the block is freed. Intervals are drawn at random (a Poisson process over the
/// bytes allocated, as Go's `MemProfileRate` and jemalloc's `lg_prof_sample` sample), so the
/// samples, each weighed by the inverse of its chance of being taken, estimate the program's
/// allocations and live heap without bias. An allocation that is not sampled costs a countdown
/// in thread-local storage, and a free a one-bit filter lookup: no lock, table or unwinding.
///
/// It works with or without ``start()``. `RETAINGRAPH_HEAP_SAMPLING=1` (or a number of bytes)
/// in the environment turns it on at launch. Only Swift heap blocks are sampled (objects,
/// closure contexts, boxes, collection storage, `UnsafeMutablePointer.allocate`, tasks);
/// memory C code allocates with `malloc` directly is not.
extension HeapCensus {
    /// The default mean sampling interval: 512 KiB, as Go and jemalloc.
    public static let defaultSamplingInterval = 512 * 1024

    /// Starts sampling allocations, one per `meanInterval` bytes on average.
    ///
    /// Calling it again changes the interval (each thread's next interval is drawn with the new
    /// mean). Samples already taken keep the weight of the interval they were taken at.
    ///
    /// ```swift
    /// HeapCensus.startSampling()
    /// // … serve requests …
    /// let heap = HeapCensus.sampledHeap()
    /// print(heap.estimatedInUseBytes)
    /// ```
    ///
    /// - Parameter meanInterval: The mean number of bytes allocated between two samples;
    ///   clamped to at least 1 (every allocation sampled). Defaults to 512 KiB.
    /// - Returns: Whether sampling is on: false when ``availability`` is not `.complete` (under
    ///   a sanitizer, which owns `malloc`, or where the runtime was not found).
    @discardableResult
    public static func startSampling(meanInterval: Int = defaultSamplingInterval) -> Bool {
        CensusDoor.startSampling(interval: meanInterval)
    }

    /// Stops taking samples. Those taken stay until their blocks are freed, and keep counting.
    public static func stopSampling() { CensusDoor.stopSampling() }

    /// Whether allocations are being sampled.
    public static var isSampling: Bool { CensusDoor.isSampling }

    /// The mean sampling interval in bytes (the last one set, or the default).
    public static var samplingInterval: Int { CensusDoor.samplingInterval }

    /// The samples taken so far (live and freed), aggregated by stack, type and size.
    ///
    /// The types of objects are read from their headers now (for live samples) or when they
    /// were freed, so an object whose initializer has not returned yet may show as
    /// `"(type not yet known)"`. The stacks are not symbolicated here.
    ///
    /// - Returns: The sampled heap.
    /// - Complexity: O(*s* + *b*) for *s* live samples and *b* distinct (stack, type, size)
    ///   buckets, under the sampling lock for the copy only (the threads that free a sampled
    ///   block wait for it; nobody else does), plus one layout lookup per type never named.
    public static func sampledHeap() -> SampledHeap {
        SampledHeap.read()
    }

    /// Runs `body` with the calling thread's allocations neither recorded nor sampled.
    ///
    /// For a profiler's own work, such as symbolicating and encoding a profile: the caches it
    /// fills are not the program's heap. Allocations of other threads meanwhile are seen as
    /// usual.
    ///
    /// - Parameter body: The work whose allocations the census must not see.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public static func withAllocationsUnseen<T>(_ body: () throws -> T) rethrows -> T {
        try CensusDoor.internally(body)
    }

    /// Live samples now, and the memory the sampled mode's tables use.
    public static var liveSampleCount: Int { CensusDoor.liveSampleCount }

    /// The memory the sampled mode's tables use now, in bytes.
    public static var sampleTableBytes: Int { CensusDoor.sampleTableBytes }
}
