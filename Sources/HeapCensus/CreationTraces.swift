import Locking
import StackTraces

/// Creation stack traces for the types chosen with ``HeapCensus/traceCreation(of:)``.
///
/// The census's C side calls ``record(_:metadata:size:frames:)`` after every object allocation while
/// tracing is on, outside its locks and with the calling thread's own allocations unrecorded
/// (so the hook does not call itself). Every other use of the lock runs the same way: an
/// allocation made while holding it must not reach the hook, which takes it.
///
/// In malloc mode the hook runs inside the object's `malloc`, before the runtime writes the
/// object's header: the type is not known yet, only the size asked for. Every allocation of a
/// chosen type's instance size is traced then, kept as *pending*, and its type is resolved from
/// the object's header later (when a trace is read, at each purge, and before the chosen types
/// change); a pending trace whose object turns out to be of another type is dropped.
final class CreationTraces: @unchecked Sendable {
    static let shared = CreationTraces()

    private struct Entry {
        /// The object's metadata, or 0 while pending.
        var metadata: UInt
        var trace: StackTrace
    }

    private let lock = PthreadLock()
    private var types: Set<UInt> = []
    /// The chosen types' instance sizes (what malloc is asked for).
    private var sizes: Set<Int> = []
    private var traces: [UInt: Entry] = [:]
    /// Entries since the last purge of dead objects' traces.
    private var added = 0

    /// What each caller asked to trace: key 0 is ``HeapCensus/traceCreation(of:)``'s choice,
    /// every other key one ``HeapCensus/withCreationTracing(of:_:)`` (or a growth measurement)
    /// still running. The census traces their union, so that one caller's end never stops
    /// another's tracing. Taken before `lock`, never inside it.
    private let requestsLock = PthreadLock()
    private var requests: [Int: [AnyClass]] = [:]
    private var lastRequest = 0

    /// Sets the process-wide choice of ``HeapCensus/traceCreation(of:)``.
    func setChosenTypes(_ classes: [AnyClass]) {
        requestsLock.withLock {
            requests[0] = classes.isEmpty ? nil : classes
            traceUnion()
        }
    }

    /// Traces `classes` too, until ``removeRequest(_:)`` with the number returned.
    func addRequest(_ classes: [AnyClass]) -> Int {
        requestsLock.withLock {
            lastRequest += 1
            requests[lastRequest] = classes
            traceUnion()
            return lastRequest
        }
    }

    /// Stops tracing the types of request `number` that no other request traces.
    func removeRequest(_ number: Int) {
        requestsLock.withLock {
            guard requests.removeValue(forKey: number) != nil else { return }
            traceUnion()
        }
    }

    /// Traces every request's types from now on. Call with `requestsLock` held.
    private func traceUnion() {
        let classes = requests.values.joined()
        let metadata = Set(
            classes.map { UInt(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self)) })
        // A class's metadata keeps its instance size at offset 24 (ReferenceReflection reads
        // the same field).
        let instanceSizes = Set(
            classes.map {
                Int(
                    unsafeBitCast($0, to: UnsafeRawPointer.self)
                        .loadUnaligned(fromByteOffset: 24, as: UInt32.self))
            })
        CensusDoor.internally {
            lock.withLock {
                // Pending traces are resolved against the types they were taken for.
                resolvePending()
                types = metadata
                sizes = instanceSizes
            }
        }
        if metadata.isEmpty {
            CensusDoor.setTracing(false)
        } else {
            CensusDoor.setCreationHook { object, metadata, size, frames, depth in
                CreationTraces.shared.record(
                    object, metadata: metadata, size: size,
                    frames: UnsafeBufferPointer(start: frames, count: depth))
            }
            CensusDoor.setTracing(true)
        }
    }

    /// Keeps the creation trace of a chosen type's new object.
    ///
    /// The census read `frames` from frame pointers inside the allocation, innermost first from
    /// the allocating function's caller: no unwinder runs here (libunwind takes its own lock and
    /// then the loader's, and this may run inside a `dl_iterate_phdr` callback, under the
    /// loader's lock).
    func record(
        _ object: UnsafeMutableRawPointer, metadata: UnsafeRawPointer?, size: Int,
        frames: UnsafeBufferPointer<UInt>
    ) {
        let type = UInt(bitPattern: metadata)
        let chosen = lock.withLock { type == 0 ? sizes.contains(size) : types.contains(type) }
        guard chosen else { return }
        let trace = StackTrace(addresses: Array(frames))
        let address = UInt(bitPattern: object)
        let purge = lock.withLock { () -> Bool in
            traces[address] = Entry(metadata: type, trace: trace)
            added += 1
            return added > 4096 && added > traces.count
        }
        _ = CensusDoor.mark(address, traced: true)
        if purge { purgeDead() }
    }

    /// The trace of the object at `address`, if it was recorded for the object there now.
    func trace(at address: UInt) -> StackTrace? {
        CensusDoor.internally {
            lock.withLock { () -> StackTrace? in
                guard let entry = traces[address], let live = CensusDoor.liveMetadata(address),
                    live != 0
                else { return nil }
                return entry.metadata == live || (entry.metadata == 0 && types.contains(live))
                    ? entry.trace : nil
            }
        }
    }

    func removeAll() {
        CensusDoor.internally {
            lock.withLock {
                traces.removeAll()
                added = 0
            }
        }
    }

    /// Drops the traces of objects whose address no longer holds an object of their type.
    private func purgeDead() {
        lock.withLock {
            resolvePending()
            traces = traces.filter { CensusDoor.metadataIfLive($0.key) == $0.value.metadata }
            added = 0
        }
    }

    /// Gives pending entries their object's type, or drops them when the object is gone or of
    /// a type not chosen; an object whose header is not written yet stays pending. Call with
    /// the lock held.
    private func resolvePending() {
        for (address, entry) in traces where entry.metadata == 0 {
            switch CensusDoor.liveMetadata(address) {
            case .none: traces[address] = nil
            case .some(0): continue
            case .some(let live) where types.contains(live): traces[address]?.metadata = live
            case .some: traces[address] = nil
            }
        }
    }
}

/// One caller's request to trace the creation of some types, traced beside everyone else's
/// until ``end()``: what ``HeapCensus/withCreationTracing(of:_:)`` holds while its body runs,
/// and what a growth measurement holds across its rounds.
package struct CreationTracing: Sendable {
    private let number: Int?

    /// Traces `types` (in addition to what others trace) from now on; nothing for none.
    package init(_ types: [AnyClass]) {
        number = types.isEmpty ? nil : CreationTraces.shared.addRequest(types)
    }

    /// Stops tracing this request's types, except those another request traces.
    package func end() {
        if let number { CreationTraces.shared.removeRequest(number) }
    }
}
