import Foundation
import HeapGraph
import ObjectGraph
import RetainGraphUtilities
import RuntimeLayouts
import StackTraces

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What holds this process's objects from outside the Swift heap, as the census sees it: the
/// writable data of the loaded images (global variables, named from their symbol tables) and
/// the running threads; not the threads' stacks, which a process cannot read of itself while
/// its threads run.
struct CensusRoots: HeapRoots {
    let memory: any MemoryReader = LocalMemory()
    let threadNames: [Int32: String]

    init() {
        var names: [Int32: String] = [:]
        let process = getpid()
        for thread in ProcessFiles.threadIDs(of: process) ?? [] {
            names[thread] = ProcessFiles.name(of: process, thread: thread).map(
                PrintableText.escaped)
        }
        threadNames = names
    }

    var unattributed: UnattributedReferences {
        UnattributedReferences(
            stacksWereRead: false, earlierObjectsUnknown: !HeapCensus.isRecordingSinceLaunch)
    }

    func forEachGlobal(
        holding index: AddressIndex, within bounds: ClosedRange<UInt>,
        _ body: (UInt, Int32) -> Void
    ) {
        CensusDoor.writableSegments { segment, _ in
            var slot = (segment.lowerBound + 7) & ~7
            let end = segment.upperBound &+ 1
            while slot &+ 8 <= end {
                let word = RacyMemory.load(slot)
                if word >= bounds.lowerBound, word <= bounds.upperBound, word & 15 == 0,
                    let object = index.index(of: word)
                {
                    body(slot, object)
                }
                slot &+= 8
            }
        }
    }

    func variable(containing slot: UInt) -> (start: UInt, name: String) {
        guard let symbol = ImageSymbols.symbol(containing: slot) else {
            return (slot, "at 0x\(String(slot, radix: 16)) (no symbol)")
        }
        return (symbol.start, Demangling.demangle(symbol.name))
    }

    func forEachStackHolder(holding index: AddressIndex, _ body: (Int32, Int32) -> Void) {}

    /// Whether the `Thread` at `object` runs (asked of the object, retained through the
    /// census), and the name its pthread gave itself (`pthread_getname_np`: corelibs
    /// Foundation's `Thread.name` getter answers with the *calling* thread's name).
    func thread(object: UInt, pthread: UInt) -> (isRunning: Bool, name: String?) {
        guard let thread = CensusDoor.object(at: object) as? Thread, thread.isExecuting,
            !thread.isFinished
        else { return (false, nil) }
        guard pthread != 0, ReadableMemory.contains(pthread, length: 1024) else {
            return (true, nil)
        }
        // corelibs Foundation keeps no name of its own: `Thread.name`'s setter names the pthread
        // once `start()` has stored it, and a name set before (or inside the thread before
        // `start()` returns: a race) is lost, the pthread keeping its creator's name.
        let name = CensusDoor.threadName(pthread).map(PrintableText.escaped)
        return (true, ownName(name, isMainThread: thread.isMainThread, processID: getpid()))
    }
}
