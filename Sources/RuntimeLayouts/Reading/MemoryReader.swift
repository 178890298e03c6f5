/// Memory of a process, read by address and never faulting: this process's own, a stopped
/// process's copy, a core file.
///
/// Every word read through it from another process is untrusted: a reader bounds-checks what
/// it reads (an address outside what was read gives nil), and the callers never follow a word
/// into their own memory.
package protocol MemoryReader: Sendable {
    /// A pointer to the `count` bytes at `address`, valid while the reader lives, or nil when
    /// any of them was not read (or, for this process, is not mapped).
    func bytes(at address: UInt, count: Int) -> UnsafeRawPointer?
}

extension MemoryReader {
    /// The 8-byte word at `address`, or nil.
    package func word(at address: UInt) -> UInt? {
        bytes(at: address, count: 8).map { $0.loadUnaligned(as: UInt.self) }
    }

    /// The 4-byte value at `address`, or nil.
    package func uint32(at address: UInt) -> UInt32? {
        bytes(at: address, count: 4).map { $0.loadUnaligned(as: UInt32.self) }
    }

    /// The target of the 32-bit relative pointer at `address` (nil for a null one).
    package func relativePointer(at address: UInt) -> UInt? {
        guard let raw = bytes(at: address, count: 4)?.loadUnaligned(as: Int32.self), raw != 0
        else { return nil }
        return UInt(bitPattern: Int(bitPattern: address) &+ Int(raw))
    }

    /// The bytes of the C string at `address`, if it ends within `limit` bytes.
    package func cString(at address: UInt, limit: Int = 256) -> [UInt8]? {
        var length = min(limit, 16)
        while true {
            if let bytes = bytes(at: address, count: length) {
                let buffer = UnsafeRawBufferPointer(start: bytes, count: length)
                if let end = buffer.firstIndex(of: 0) { return Array(buffer[..<end]) }
                if length >= limit { return nil }
                length = min(length * 4, limit)
            } else {
                if length <= 1 { return nil }
                length /= 2  // the string may end near the end of what was read
                if let bytes = bytes(at: address, count: length) {
                    let buffer = UnsafeRawBufferPointer(start: bytes, count: length)
                    if let end = buffer.firstIndex(of: 0) { return Array(buffer[..<end]) }
                }
                return nil
            }
        }
    }
}

/// This process's own memory, read only where the kernel says it is mapped.
package struct LocalMemory: MemoryReader {
    package init() {}

    package func bytes(at address: UInt, count: Int) -> UnsafeRawPointer? {
        guard count > 0, count <= 256, ReadableMemory.contains(address, length: count) else {
            return nil
        }
        return UnsafeRawPointer(bitPattern: address)
    }
}
