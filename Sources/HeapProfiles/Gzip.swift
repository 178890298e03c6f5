// The only Swift file that imports the zlib door (Sources/CZlib).
internal import CZlib

/// gzip compression, as pprof files are stored and served.
///
/// The corresponding C functions are zlib's `deflateInit2` (window bits 15 + 16: a gzip
/// member), `deflate` and `deflateEnd`. Foundation on Linux offers no compression of its own.
enum Gzip {
    /// `bytes` compressed into one gzip member at zlib's default level.
    ///
    /// - Parameter bytes: What to compress (at most 4 GiB).
    /// - Returns: The gzip data.
    /// - Throws: ``HeapProfileError/compressionFailed`` when zlib fails (out of memory).
    static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        guard bytes.count < Int(UInt32.max) else { throw HeapProfileError.compressionFailed }
        let capacity = czlib_gzip_bound(bytes.count)
        var output = [UInt8](repeating: 0, count: capacity)
        let written = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                czlib_gzip(input.baseAddress, input.count, output.baseAddress, output.count)
            }
        }
        guard written > 0 else { throw HeapProfileError.compressionFailed }
        output.removeLast(capacity - written)
        return output
    }
}
