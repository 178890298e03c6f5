import HeapGraph
import Locking
import RetainGraph
import RetainGraphUtilities
import StackTraces

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A census of live Swift heap objects: every class instance, closure context, box and
/// collection storage allocated while it runs is known, with its type, until it is freed; a
/// ``/HeapGraph/HeapSnapshot`` adds the references between them and who holds each from outside.
///
/// The census is opt-in twice: a program that does not link this module pays nothing, and
/// one that links it pays one flag test per allocation until ``start()`` (or the environment
/// variable `RETAINGRAPH_CENSUS=1` at launch) turns it on.
///
/// ```swift
/// import HeapCensus
///
/// HeapCensus.start()
/// let session = Session()                           // kept alive by a timer you cannot see
/// let heap = HeapCensus.snapshot()
/// print(heap.retentionPath(to: session)?.description ?? "not held")
/// // a Foundation.Timer scheduled on a run loop ⇒ Timer ⇒ (_fire) Session
/// ```
///
/// ## How it sees objects
/// The module defines `malloc`, `free` and `posix_memalign` in the executable it is linked
/// into (forwarding to glibc's), and keeps the blocks the Swift runtime allocates for objects
/// (recognised by their callers, `swift_slowAlloc` called from `swift_allocObject`) and for
/// tasks, in a striped hash table: about 8–16 bytes per live object. This sees the standard
/// library's internal allocations too (most collection storage in a debug build). Under a
/// sanitizer, which owns `malloc`, it interposes `swift_allocObject` instead and sees only
/// objects allocated outside libswiftCore (``availability`` says so).
///
/// All functions may be called from any thread; the census never calls your code and never
/// keeps an object alive.
public enum HeapCensus {
    /// How completely the census can see allocations in this process.
    public enum Availability: Equatable, Sendable {
        /// Every Swift heap object (malloc interposed).
        case complete
        /// Objects allocated through `swift_allocObject` from outside the standard library:
        /// the process runs under a sanitizer, which owns `malloc`.
        case objectsOutsideStandardLibrary
        /// The Swift runtime's allocation functions were not found (a statically linked
        /// runtime, or a platform other than Linux): the census records nothing.
        case unavailable
    }

    /// How completely the census can see allocations here.
    public static var availability: Availability {
        switch CensusDoor.prepare() {
        case .malloc: return .complete
        case .sanitizer: return .objectsOutsideStandardLibrary
        case .unavailable: return .unavailable
        }
    }

    /// Starts recording every Swift heap object allocated from now on.
    ///
    /// Objects allocated before are not known (until the census is ``reset()``, what it
    /// knows stays). Calling it while running does nothing. It also registers
    /// ``CensusDiscoverer`` in `DiscoveryRegistry.shared`, so every `LeakWatcher` explains its
    /// leaks with the census from its next check.
    ///
    /// - Returns: Whether the census records (false when ``availability`` is `.unavailable`).
    @discardableResult
    public static func start() -> Bool {
        guard availability != .unavailable else { return false }
        CensusDoor.isRecording = true
        DiscoveryRegistry.shared.register(
            CensusDiscoverer(), named: CensusDiscoverer.name, order: .heapCensus)
        return CensusDoor.isRecording
    }

    /// Stops recording new objects and unregisters the census's discoverer. Objects already
    /// known stay known until they are freed.
    public static func stop() {
        CensusDoor.isRecording = false
        _ = DiscoveryRegistry.shared.unregister(named: CensusDiscoverer.name)
    }

    /// Whether the census records new objects.
    public static var isRunning: Bool { CensusDoor.isRecording }

    /// Whether the census has recorded since before the program's code ran, so that it knows
    /// every live Swift object: true in a test process (SwiftPM's `.xctest` bundle) and with
    /// `RETAINGRAPH_CENSUS=1`, false after ``start()`` in a running process or after
    /// ``stop()``.
    public static var isRecordingSinceLaunch: Bool { CensusDoor.recordedSinceLaunch }

    /// Forgets every object known so far (and their creation traces).
    public static func reset() {
        CensusDoor.clear()
        CreationTraces.shared.removeAll()
    }

    /// The number of live objects the census knows.
    ///
    /// - Complexity: O(1) (a sum over 256 counters).
    public static var liveObjectCount: Int { CensusDoor.count }

    /// The memory the census's table uses now, in bytes.
    public static var tableBytes: Int { CensusDoor.tableBytes }

    /// Reads every live object the census knows, with its references, into a snapshot.
    ///
    /// The reading takes one short lock at a time (a stripe of the table, about 1/256 of the
    /// objects): threads that free an object of that stripe wait for it, nobody else does.
    /// Objects allocated or freed while it runs may or may not be included.
    ///
    /// - Returns: The heap's reference graph.
    /// - Complexity: O(*n* + *r*) for *n* live objects holding *r* references, plus one pass
    ///   over the writable data of the loaded images (global variables). About 0.5–1 s for a
    ///   million objects (see `Benchmarks/RESULTS.md`).
    public static func snapshot() -> HeapSnapshot {
        let started = ContinuousClock.now
        let scan = CensusScan.run()
        return CensusDoor.internally {
            var statistics = HeapReadStatistics()
            statistics.layouts = scan.layouts.count
            var snapshot = HeapSnapshot(
                scan: scan, roots: CensusRoots(), process: thisProcess, limitations: [],
                statistics: statistics,
                creationTraces: { CreationTraces.shared.trace(at: $0) })
            let elapsed = ContinuousClock.now - started
            snapshot.statistics.analysisSeconds =
                Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return snapshot
        }
    }

    /// This process, as its snapshots describe it.
    private static var thisProcess: HeapProcess {
        let process = getpid()
        return HeapProcess(
            processID: process, command: ProcessFiles.name(of: process) ?? "?",
            isThisProcess: true)
    }

    /// Records where objects of the given types are created, from now on.
    ///
    /// Each such allocation captures a stack trace (about 0.3 µs); ``creationTrace(of:)``
    /// returns it. Pass an empty array to stop. The census sees an object's allocation before
    /// the runtime writes its type, so while tracing, every object of the same instance size
    /// as a chosen type is traced too, and its trace dropped once its type is known: trace few
    /// types, for a short while.
    ///
    /// This is the process's one standing choice: a later call replaces it. Code that traces
    /// for a while beside other code (a test among tests running in parallel) uses
    /// ``withCreationTracing(of:_:)`` instead, whose types are traced *as well*, and whose end
    /// stops no one else's tracing.
    ///
    /// - Parameter types: The classes whose instances to trace.
    public static func traceCreation(of types: [AnyClass]) {
        CreationTraces.shared.setChosenTypes(types)
    }

    /// Records where objects of the given types are created while `body` runs.
    ///
    /// The types are traced in addition to any others traced meanwhile (by
    /// ``traceCreation(of:)``, another `withCreationTracing` or a growth measurement); when
    /// `body` returns, those no one else traces stop being traced. The traces taken stay
    /// readable with ``creationTrace(of:)`` for as long as their objects live.
    ///
    /// ```swift
    /// let session = HeapCensus.withCreationTracing(of: [Session.self]) { server.open() }
    /// print(HeapCensus.creationTrace(of: session)?.symbolicated() ?? [])
    /// ```
    ///
    /// - Parameters:
    ///   - types: The classes whose instances to trace.
    ///   - body: The work whose allocations of those types to trace.
    /// - Returns: What `body` returns.
    public static func withCreationTracing<Result, Failure: Error>(
        of types: [AnyClass], _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let tracing = CreationTracing(types)
        defer { tracing.end() }
        return try body()
    }

    /// Records where objects of the given types are created while the asynchronous `body`
    /// runs (see the synchronous form); `body` runs on the caller's actor.
    ///
    /// Tracing is process-wide: objects of these types made meanwhile by other tasks are
    /// traced too.
    public static func withCreationTracing<Result, Failure: Error>(
        of types: [AnyClass], isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let tracing = CreationTracing(types)
        defer { tracing.end() }
        return try await body()
    }

    /// Where `object` was created, if its type was traced when it was.
    public static func creationTrace(of object: AnyObject) -> StackTrace? {
        CreationTraces.shared.trace(
            at: UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
    }
}
