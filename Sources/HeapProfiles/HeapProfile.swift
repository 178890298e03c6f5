public import HeapCensus

/// A heap profile in pprof's format, built from the census's sampled mode.
///
/// The profile has pprof's four heap sample types, `alloc_objects`, `alloc_space`,
/// `inuse_objects` and `inuse_space` (the default), scaled for the sampling as Go's are (see
/// ``/HeapCensus/SampledHeap``), one sample per allocation stack, type and size with the Swift
/// type as its `type` label and the size as its `bytes` label, and functions, files and lines
/// from the process's own symbolication (``/StackTraces/StackTrace/symbolicated()``), so
/// `go tool pprof`, Grafana Pyroscope and Parca read it without the binary.
///
/// ```swift
/// HeapCensus.startSampling()
/// // … later, on request:
/// let bytes = try HeapProfile.sampled().gzipped()   // what /debug/pprof/heap serves
/// ```
///
/// Frames of the Swift runtime at the allocation end of a stack are left out (as Go hides its
/// runtime's), so a stack starts at the code that asked for the memory: the allocating
/// initializer in a debug build, your function where it was inlined.
public struct HeapProfile: Sendable {
    /// The samples the profile shows.
    public let heap: SampledHeap

    /// A profile of `heap`.
    ///
    /// - Parameter heap: A reading of the sampled mode (``/HeapCensus/HeapCensus/sampledHeap()``).
    public init(_ heap: SampledHeap) { self.heap = heap }

    /// A profile of the samples taken so far.
    ///
    /// - Returns: The profile; empty when sampling was never on
    ///   (``/HeapCensus/HeapCensus/startSampling(meanInterval:)``).
    public static func sampled() -> HeapProfile { HeapProfile(HeapCensus.sampledHeap()) }

    /// The profile as pprof's protocol buffer, not compressed.
    ///
    /// - Returns: A serialized `perftools.profiles.Profile`.
    /// - Complexity: O(*r* × *d*) for *r* records of stacks *d* frames deep, plus the
    ///   symbolication of addresses never seen before, once per process (one symbolizer run
    ///   per image and batch; see `StackTrace.symbolicated()`).
    public func pprof() -> [UInt8] {
        // The symbolicator's caches and the encoder's buffers are the profiler's, not the
        // program's: they are neither recorded nor sampled.
        HeapCensus.withAllocationsUnseen {
            var builder = PprofBuilder(heap)
            return builder.build().encoded()
        }
    }

    /// The profile as pprof files and endpoints hold it: the protocol buffer, gzip-compressed.
    ///
    /// - Returns: The gzip data.
    /// - Throws: ``HeapProfileError/compressionFailed`` when zlib fails (out of memory).
    public func gzipped() throws -> [UInt8] {
        let encoded = pprof()
        return try HeapCensus.withAllocationsUnseen { try Gzip.compress(encoded) }
    }
}

/// Why a heap profile could not be made.
public enum HeapProfileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// zlib could not compress the profile (it ran out of memory).
    case compressionFailed

    /// A message for a person.
    public var description: String {
        switch self {
        case .compressionFailed: return "zlib could not compress the heap profile"
        }
    }
}
