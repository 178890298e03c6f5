// PRIVATE GLIBC DETAILS (glibc 2.36, x86-64): a chunk is prev_size and size (the low three
// bits A, M, P: non-main arena, mmapped, previous in use) before the block the program sees;
// the next chunk's size word holds this one's in-use bit. A freed chunk in a tcache keeps its
// in-use bit and holds, in its first words, the next entry (safe-linked) and the tcache key.
#if canImport(Glibc)
import Glibc
#endif

/// What the heap walk sees of a block: its chunk header, its first words, the next chunk's
/// header. Read from `/proc/PID/mem` (needs the same permission as an attach).
enum ChunkHeaders {
    static func describe(pid: Int32, address: UInt) -> String {
        let descriptor = open("/proc/\(pid)/mem", O_RDONLY)
        guard descriptor >= 0 else { return "0x\(hex(address)): cannot open /proc/\(pid)/mem" }
        defer { close(descriptor) }
        func word(_ at: UInt) -> UInt? {
            var value: UInt = 0
            let read = withUnsafeMutableBytes(of: &value) {
                pread(descriptor, $0.baseAddress, 8, off_t(Int(bitPattern: at)))
            }
            return read == 8 ? value : nil
        }
        guard let size = word(address &- 8), let previous = word(address &- 16) else {
            return "0x\(hex(address)): unreadable"
        }
        let chunk = size & ~7
        let flags = [(4, "A"), (2, "M"), (1, "P")].filter { size & UInt($0.0) != 0 }.map(\.1)
        let words = (0..<4).map { word(address + UInt(8 * $0)).map { "0x" + hex($0) } ?? "?" }
        var text =
            "0x\(hex(address)): prev_size 0x\(hex(previous)), size \(chunk) "
            + "[\(flags.joined())], words \(words.joined(separator: " "))"
        if size & 2 == 0, let next = word(address &- 16 &+ chunk &+ 8) {
            text +=
                "; next chunk size \(next & ~7), its P bit \(next & 1) (this chunk "
                + (next & 1 != 0 ? "in use or in a tcache/fastbin" : "free") + ")"
        }
        return text
    }

    private static func hex(_ value: UInt) -> String { String(value, radix: 16) }
}
