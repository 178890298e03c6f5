import Foundation
import HeapCensus
import StackTraces
import Synchronization

/// A traced type: every allocation of one records a creation trace.
final class Traced {
    var value: Int
    var next: Traced?

    init(_ value: Int) { self.value = value }
}

/// Set while the loader threads run; the other threads stop when it clears.
let running = Atomic<Bool>(true)
/// Objects the callbacks made, counted so that the work is not optimized away.
let made = Atomic<Int>(0)

/// The C library's `dl_iterate_phdr` (not in the Glibc module), whose callback runs with the
/// loader's lock held.
private typealias ImageVisitor =
    @convention(c) (OpaquePointer?, Int, UnsafeMutableRawPointer?) -> Int32
nonisolated(unsafe) private let iterateImages = unsafeBitCast(
    dlsym(nil, "dl_iterate_phdr"),
    to: (@convention(c) (ImageVisitor, UnsafeMutableRawPointer?) -> Int32).self)

/// The dl_iterate_phdr callback: allocates traced objects (a creation trace each) and an
/// array (sampled: the mean interval is a few bytes) while this thread holds the loader's lock.
private func allocatingVisitor(
    _ info: OpaquePointer?, _ size: Int, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    let first = Traced(size)
    first.next = Traced(info == nil ? 0 : 1)
    let values = [first.value, first.next?.value ?? 0, 3, 4]
    if HeapCensus.creationTrace(of: first) != nil { made.add(1, ordering: .relaxed) }
    made.add(values.count, ordering: .relaxed)
    return 0
}

/// libunwind's cache flush, so that the unwinding thread misses its cache on every step: it
/// then takes libunwind's lock and, under it, the loader's (dl_iterate_phdr), as a process
/// with a lot of code does. nil where libunwind is not loaded under these names.
nonisolated(unsafe) private let flushUnwindCache: (() -> Void)? = {
    guard let flush = dlsym(nil, "_Ux86_64_flush_cache") ?? dlsym(nil, "_ULx86_64_flush_cache"),
        let space = dlsym(nil, "_ULx86_64_local_addr_space")
    else { return nil }
    typealias Flush = @convention(c) (UnsafeMutableRawPointer?, UInt, UInt) -> Void
    let function = unsafeBitCast(flush, to: Flush.self)
    let addressSpace = space.load(as: UnsafeMutableRawPointer?.self)
    return { function(addressSpace, 0, 0) }
}()

/// Recurses `depth` times, then captures with libunwind: unwinds of varying depth.
@inline(never)
private func unwind(_ depth: Int) -> Int {
    depth <= 0 ? StackTrace.capture().addresses.count : unwind(depth - 1) + 1
}

enum LoaderLockRun {
    static func run(rounds: Int) {
        guard HeapCensus.start() else {
            print("census unavailable")
            exit(3)
        }
        HeapCensus.traceCreation(of: [Traced.self])
        let sampling = HeapCensus.startSampling(meanInterval: 16)
        // Each round's callbacks run on new threads: libunwind's per-thread cache starts empty
        // on each, so an unwind there steps (taking libunwind's lock) under the loader's lock.
        let loaders = [
            thread {
                for _ in 0..<rounds {
                    let threads = (0..<3).map { _ in
                        thread { _ = iterateImages(allocatingVisitor, nil) }
                    }
                    for loader in threads { loader.wait() }
                }
            }
        ]
        let others =
            [
                thread {  // creation traces outside the loader's lock
                    while running.load(ordering: .relaxed) {
                        let traced = Traced(1)
                        _ = HeapCensus.creationTrace(of: traced)
                        _ = HeapCensus.creationSite(of: traced)?.allocatingCaller
                    }
                },
                thread {  // census snapshots
                    while running.load(ordering: .relaxed) { _ = HeapCensus.snapshot().objectCount }
                },
            ]
            + (0..<2).map { start in
                thread {  // libunwind with a cold cache
                    var depth = start
                    while running.load(ordering: .relaxed) {
                        flushUnwindCache?()
                        depth = (depth + 7) % 24
                        _ = unwind(depth)
                    }
                }
            }
        for loader in loaders { loader.wait() }
        running.store(false, ordering: .relaxed)
        for other in others { other.wait() }
        HeapCensus.stopSampling()
        print(
            "completed \(rounds) rounds; sampling \(sampling); libunwind cache flushed: "
                + "\(flushUnwindCache != nil); objects \(made.load(ordering: .relaxed))")
    }

    /// A started thread and a way to wait for its end.
    final class Started: @unchecked Sendable {
        var thread = pthread_t()
        var running = false
        func wait() { if running { pthread_join(thread, nil) } }
    }

    /// Starts `body` on a new POSIX thread. (Not Foundation's `Thread`: a census snapshot reads
    /// every live `Thread` object, and one that dies meanwhile crashed the snapshot in
    /// TimerProbe.runningThread(at:), a separate defect reported to the lead.)
    static func thread(_ body: @escaping @Sendable () -> Void) -> Started {
        let started = Started()
        final class Work {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Work(body)).toOpaque()
        let result = pthread_create(
            &started.thread, nil,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Work>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, context)
        started.running = result == 0
        if !started.running {
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
        }
        return started
    }
}
