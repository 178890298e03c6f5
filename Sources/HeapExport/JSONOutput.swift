#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a heap snapshot could not be written.
public struct HeapExportError: Error, CustomStringConvertible, Sendable {
    /// The file that could not be written.
    public let path: String
    /// The system's error number (`errno`).
    public let code: Int32

    /// A one-line description, such as `cannot write /tmp/x.heapsnapshot: No such file or
    /// directory`.
    public var description: String {
        "cannot write \(path): \(String(cString: strerror(code)))"
    }
}

/// JSON text written into a byte buffer that is flushed to a file (or kept) in large blocks.
///
/// The only place this module touches the C library: `open`, `write` and `close` for the file,
/// so a million-object snapshot streams to disk without holding the whole text in memory.
/// Numbers are formatted by hand (a `String` per number would cost an allocation each).
struct JSONOutput {
    private var buffer: [UInt8] = []
    private var descriptor: Int32 = -1
    private let path: String
    private(set) var failure: Int32 = 0
    /// Bytes written to the file so far (not counting the buffer).
    private(set) var flushedBytes = 0
    private static let blockSize = 1 << 20

    /// Output kept in memory.
    init() {
        path = ""
        buffer.reserveCapacity(Self.blockSize)
    }

    /// Output written to the file at `path` (created or truncated; the corresponding C
    /// function is `open`).
    init(file path: String) throws(HeapExportError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw HeapExportError(path: path, code: errno) }
        buffer.reserveCapacity(Self.blockSize + 4_096)
    }

    /// The bytes, when kept in memory.
    var bytes: [UInt8] { buffer }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
        flushIfFull()
    }

    mutating func append(byte: UInt8) {
        buffer.append(byte)
    }

    /// Appends integers in decimal, separated by commas: a row of one of the format's flat
    /// arrays (kept on the stack, whatever the number of rows).
    mutating func append<let count: Int>(row: InlineArray<count, UInt64>) {
        for index in row.indices {
            if index > 0 { buffer.append(0x2C) }
            append(row[index])
        }
    }

    /// Appends a non-negative integer in decimal.
    mutating func append(_ value: UInt64) {
        if value < 10 {
            buffer.append(UInt8(truncatingIfNeeded: value) &+ 48)
            return
        }
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes of scratch
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { scratch in
            while rest > 0 {
                scratch[31 - count] = UInt8(truncatingIfNeeded: rest % 10) &+ 48
                rest /= 10
                count += 1
            }
            buffer.append(contentsOf: scratch[(32 - count)...])
        }
    }

    /// Appends `string` as a JSON string literal, quotes included.
    mutating func append(string: String) {
        buffer.append(34)
        for byte in string.utf8 {
            switch byte {
            case 34: buffer.append(contentsOf: [92, 34])
            case 92: buffer.append(contentsOf: [92, 92])
            case 10: buffer.append(contentsOf: [92, 110])
            case 13: buffer.append(contentsOf: [92, 114])
            case 9: buffer.append(contentsOf: [92, 116])
            case 0..<32:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                buffer.append(contentsOf: [
                    92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)],
                ])
            default: buffer.append(byte)
            }
        }
        buffer.append(34)
        flushIfFull()
    }

    /// Appends `items` one per line, separated by commas, each written by `body`.
    mutating func append<Items: Sequence>(
        lines items: Items, _ body: (inout JSONOutput, Items.Element) -> Void
    ) {
        for (index, item) in items.enumerated() {
            if index > 0 { append(",\n") }
            body(&self, item)
            flushIfFull()
        }
    }

    /// Writes the buffer to the file once it holds a block.
    mutating func flushIfFull() {
        if descriptor >= 0, buffer.count >= Self.blockSize { flush() }
    }

    /// Writes everything buffered to the file (the corresponding C function is `write`).
    private mutating func flush() {
        guard failure == 0 else {
            buffer.removeAll(keepingCapacity: true)
            return
        }
        var offset = 0
        buffer.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            while offset < bytes.count {
                let written = write(descriptor, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        flushedBytes += offset
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes the file (the corresponding C function is `close`).
    ///
    /// - Returns: The number of bytes written.
    /// - Throws: ``HeapExportError`` when a write or the close failed.
    mutating func finish() throws(HeapExportError) -> Int {
        guard descriptor >= 0 else { return buffer.count }
        flush()
        if close(descriptor) != 0, failure == 0 { failure = errno }
        descriptor = -1
        if failure != 0 { throw HeapExportError(path: path, code: failure) }
        return flushedBytes
    }
}
