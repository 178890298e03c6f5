import Foundation

/// Byte counts as every report writes them: `512 B`, `3.1 KB`, `1.2 MB`, `2.0 GB` (powers of
/// 1,024, one decimal).
///
/// Growth reports and leak reports share it, so a figure reads the same in both.
///
/// ```swift
/// ByteCount.description(3_174)        // "3.1 KB"
/// ByteCount.description(1_258_291)    // "1.2 MB"
/// ```
package enum ByteCount {
    /// `count` bytes in the largest unit that keeps the number at or above 1.
    ///
    /// - Parameter count: A number of bytes; negative counts are written as they are, in bytes.
    /// - Returns: The text, such as `1.2 MB`.
    package static func description(_ count: Int) -> String {
        guard count >= 1024 else { return "\(count) B" }
        var value = Double(count) / 1024
        for unit in ["KB", "MB", "GB"] {
            if value < 1024 || unit == "GB" { return String(format: "%.1f ", value) + unit }
            value /= 1024
        }
        return "\(count) B"
    }
}
