import RuntimeLayouts

/// Finds the roots of a captured process: the words of global variables, thread stacks and
/// registers that hold the address of a live object.
struct RootScan {
    /// A word of an image's writable data that holds object `object`.
    struct GlobalSlot {
        var object: Int32
        var slot: UInt
    }

    /// A thread's stack word or register that holds object `object`.
    struct ThreadSlot: Hashable {
        var object: Int32
        var thread: Int32
        var isRegister: Bool
    }

    /// x86-64's red zone: a leaf function may keep locals this far below the stack pointer.
    static let redZone: UInt = 128

    let memory: ProcessMemory
    let index: AddressIndex

    /// Every global variable word holding an object, by image order then address.
    func globals() -> [GlobalSlot] {
        var found: [GlobalSlot] = []
        for image in memory.images.images {
            for range in image.writableRanges {
                scan(range) { slot, object in found.append(GlobalSlot(object: object, slot: slot)) }
            }
        }
        return found
    }

    /// Every object a thread's stack (from its stack pointer, less the red zone, to the end of
    /// the stack's mapping) or registers hold, once per thread.
    func threads() -> [ThreadSlot] {
        var found = Set<ThreadSlot>()
        for thread in memory.threads {
            for register in thread.registers {
                if let object = index.index(of: register) {
                    found.insert(ThreadSlot(object: object, thread: thread.id, isRegister: true))
                }
            }
            guard
                let stack = memory.mappings.first(where: { $0.range.contains(thread.stackPointer) })
            else { continue }
            let start = max(stack.range.lowerBound, thread.stackPointer &- Self.redZone)
            scan(start..<stack.range.upperBound) { _, object in
                found.insert(ThreadSlot(object: object, thread: thread.id, isRegister: false))
            }
        }
        return found.sorted { ($0.object, $0.thread) < ($1.object, $1.thread) }
    }

    /// Calls `body` with each aligned word of `range` that is an object's address.
    private func scan(_ range: Range<UInt>, _ body: (UInt, Int32) -> Void) {
        var address = (range.lowerBound + 7) & ~7
        while address + 8 <= range.upperBound {
            guard let region = memory.region(containing: address) else {
                // Not read (not writable, or beyond the copy limit): skip to the next region.
                guard let next = memory.regions.first(where: { $0.range.lowerBound > address })
                else { return }
                address = next.range.lowerBound
                continue
            }
            let end = min(range.upperBound, region.range.upperBound)
            while address + 8 <= end {
                let word = region.local(address).loadUnaligned(as: UInt.self)
                if word & 15 == 0, word >= 4096, let object = index.index(of: word) {
                    body(address, object)
                }
                address += 8
            }
        }
    }
}
