// PRIVATE GLIBC AND KERNEL DETAILS (x86-64): a thread's `fs` base register holds its thread
// pointer, which is its `pthread_t` (the address of glibc's `struct pthread`); it is word 21 of
// the kernel's `user_regs_struct` (the registers `PTRACE_GETREGSET` reads). A leaf function may
// keep locals in the red zone, 128 bytes below the stack pointer.

import HeapGraph
import ObjectGraph
import RetainGraphUtilities
import RuntimeLayouts
import StackTraces

/// What holds a stopped process's objects from outside the Swift heap: the words of its images'
/// writable data (global variables, named from the images' symbol tables), its threads' stacks
/// and registers, and its running `Foundation.Thread`s (their pthread is a stopped thread's
/// thread pointer).
struct ProcessRoots: HeapRoots {
    /// x86-64's red zone: a leaf function may keep locals this far below the stack pointer.
    static let redZone: UInt = 128
    /// `user_regs_struct`'s `fs_base`.
    static let threadPointerRegister = 21

    let processMemory: ProcessMemory
    let threadNames: [Int32: String]
    /// Thread pointers (`pthread_t`) to kernel thread ids.
    private let threadOfPointer: [UInt: Int32]

    init(memory: ProcessMemory) {
        processMemory = memory
        // Thread names are the target's own text (`/proc/PID/task/TID/comm`): escaped.
        threadNames = Dictionary(
            memory.threads.map { ($0.id, PrintableText.escaped($0.name)) }
        ) { first, _ in first }
        var pointers: [UInt: Int32] = [:]
        #if arch(x86_64)
        for thread in memory.threads where thread.registers.count > Self.threadPointerRegister {
            pointers[thread.registers[Self.threadPointerRegister]] = thread.id
        }
        #endif
        threadOfPointer = pointers
    }

    var memory: any MemoryReader { processMemory }

    var unattributed: UnattributedReferences { UnattributedReferences(stacksWereRead: true) }

    func forEachGlobal(
        holding index: AddressIndex, within bounds: ClosedRange<UInt>,
        _ body: (UInt, Int32) -> Void
    ) {
        for image in processMemory.images.images {
            for range in image.writableRanges {
                scan(range, index: index, within: bounds, body)
            }
        }
    }

    func variable(containing slot: UInt) -> (start: UInt, name: String) {
        guard let image = processMemory.images.image(containing: slot) else {
            return (slot, "at 0x\(String(slot, radix: 16)) (no symbol)")
        }
        guard let symbol = image.symbol(containing: slot) else {
            let file = PrintableText.escaped(
                image.path.split(separator: "/").last.map(String.init) ?? image.path)
            return (slot, "at 0x\(String(slot, radix: 16)) in \(file) (no symbol)")
        }
        return (image.bias &+ symbol.value, PrintableText.escaped(Demangling.demangle(symbol.name)))
    }

    func forEachStackHolder(holding index: AddressIndex, _ body: (Int32, Int32) -> Void) {
        var found = Set<UInt64>()
        func add(_ thread: Int32, _ object: Int32) {
            if found.insert(UInt64(UInt32(bitPattern: thread)) << 32 | UInt64(UInt32(object)))
                .inserted
            {
                body(thread, object)
            }
        }
        for thread in processMemory.threads {
            for register in thread.registers {
                if let object = index.index(of: register) { add(thread.id, object) }
            }
            guard
                let stack = processMemory.mappings.first(where: {
                    $0.range.contains(thread.stackPointer)
                })
            else { continue }
            let start = max(stack.range.lowerBound, thread.stackPointer &- Self.redZone)
            scan(start..<stack.range.upperBound, index: index, within: 4096...UInt.max) {
                _, object in
                add(thread.id, object)
            }
        }
    }

    func thread(object: UInt, pthread: UInt) -> (isRunning: Bool, name: String?) {
        guard let thread = threadOfPointer[pthread] else { return (false, nil) }
        let process = processMemory.processID
        return (
            true,
            ownName(threadNames[thread], isMainThread: thread == process, processID: process)
        )
    }

    /// Calls `body` with each aligned word of `range` that is an object's address.
    private func scan(
        _ range: Range<UInt>, index: AddressIndex, within bounds: ClosedRange<UInt>,
        _ body: (UInt, Int32) -> Void
    ) {
        var address = (range.lowerBound + 7) & ~7
        while address + 8 <= range.upperBound {
            guard let region = processMemory.region(containing: address) else {
                // Not read (not writable, or beyond the copy limit): skip to the next region.
                guard
                    let next = processMemory.regions.first(where: {
                        $0.range.lowerBound > address
                    })
                else { return }
                address = next.range.lowerBound
                continue
            }
            let end = min(range.upperBound, region.range.upperBound)
            while address + 8 <= end {
                let word = region.local(address).loadUnaligned(as: UInt.self)
                if word & 15 == 0, bounds.contains(word), let object = index.index(of: word) {
                    body(address, object)
                }
                address += 8
            }
        }
    }
}
