import Locking
import StackTraces

/// Creation stack traces for the types chosen with ``HeapCensus/traceCreation(of:)``.
///
/// The census's C side calls ``record(_:metadata:)`` after every object allocation while
/// tracing is on, outside its locks and with the calling thread's own allocations unrecorded
/// (so the hook does not call itself). Every other use of the lock runs the same way: an
/// allocation made while holding it must not reach the hook, which takes it.
final class CreationTraces: @unchecked Sendable {
    static let shared = CreationTraces()

    private struct Entry {
        var metadata: UInt
        var trace: StackTrace
    }

    private let lock = PthreadLock()
    private var types: Set<UInt> = []
    private var traces: [UInt: Entry] = [:]
    /// Entries since the last purge of dead objects' traces.
    private var added = 0

    func setTypes(_ classes: [AnyClass]) {
        let metadata = Set(
            classes.map { UInt(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self)) })
        CensusDoor.internally { lock.withLock { types = metadata } }
        if metadata.isEmpty {
            CensusDoor.setTracing(false)
        } else {
            CensusDoor.setCreationHook { object, metadata in
                CreationTraces.shared.record(object, metadata: metadata)
            }
            CensusDoor.setTracing(true)
        }
    }

    func record(_ object: UnsafeMutableRawPointer, metadata: UnsafeRawPointer) {
        let type = UInt(bitPattern: metadata)
        guard lock.withLock({ types.contains(type) }) else { return }
        // Everything up to the census's swift_allocObject is the census's own.
        let captured = StackTrace.capture(depth: StackTrace.defaultDepth + 8)
        let hook = CensusDoor.allocationHook
        let cut = captured.addresses.firstIndex { hook.contains($0 &- 1) }
        let trace = StackTrace(
            addresses: cut.map { Array(captured.addresses[($0 + 1)...]) } ?? captured.addresses)
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
        guard let entry = CensusDoor.internally({ lock.withLock({ traces[address] }) }),
            CensusDoor.metadataIfLive(address) == entry.metadata
        else { return nil }
        return entry.trace
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
            traces = traces.filter { CensusDoor.metadataIfLive($0.key) == $0.value.metadata }
            added = 0
        }
    }
}
