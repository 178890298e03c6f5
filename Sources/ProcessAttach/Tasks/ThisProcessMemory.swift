#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// This process's own memory as the remote mirror reads it for this process's tasks: every
/// read is a copy made by the kernel (`process_vm_readv` on this process), so a word that no
/// longer points anywhere (a task that ended meanwhile, a slab returned to the system) gives an
/// error, never a fault.
///
/// The bytes may be changing while they are copied (the tasks run on): what they say is
/// treated as untrusted, as another process's words are.
enum ThisProcessMemory {
    /// The most bytes one read copies (the mirror reads objects and contexts, never more than
    /// a few kilobytes at once).
    static let readLimit = 1 << 20

    /// A copy of the `count` bytes at `address`, for the mirror's `ReadBytesFunction`: the
    /// buffer goes to `freeContext` (the mirror frees it through `FreeBytesFunction`); nil when
    /// any byte cannot be read.
    static func copy(
        _ address: UInt, count: Int, freeContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> UnsafeRawPointer? {
        guard count >= 0, count <= readLimit, address >= 4096 else { return nil }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        guard count == 0 || read(address, into: buffer, count: count) else {
            buffer.deallocate()
            return nil
        }
        freeContext?.pointee = buffer
        return UnsafeRawPointer(buffer)
    }

    /// The length of the C string at `address` (at most 64 KiB), or nil when it cannot be read
    /// or does not end.
    static func stringLength(at address: UInt) -> Int? {
        var chunk = [UInt8](repeating: 0, count: 256)
        var length = 0
        while length < 1 << 16 {
            // A chunk stops at its page's end, so that a string ending just before an unmapped
            // page is read.
            let start = address &+ UInt(length)
            let toPageEnd = 4096 - Int(start & 4095)
            let count = min(chunk.count, toPageEnd)
            let copied = chunk.withUnsafeMutableBytes { buffer -> Bool in
                guard let base = buffer.baseAddress else { return false }
                return read(start, into: base, count: count)
            }
            guard copied else { return nil }
            if let end = chunk.prefix(count).firstIndex(of: 0) { return length + end }
            length += count
        }
        return nil
    }

    /// The word at `address`, or nil.
    static func word(at address: UInt) -> UInt? {
        var word: UInt = 0
        let copied = withUnsafeMutableBytes(of: &word) { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return read(address, into: base, count: 8)
        }
        return copied ? word : nil
    }

    /// Copies `count` bytes at `address` into `buffer`; whether all of them were copied.
    private static func read(_ address: UInt, into buffer: UnsafeMutableRawPointer, count: Int)
        -> Bool
    {
        guard address >= 4096, address <= UInt.max - UInt(count) else { return false }
        switch ProcessAccess.read(getpid(), ranges: [(buffer, address, count)]) {
        case .success(let copied): return copied == count
        case .failure: return false
        }
    }
}
