/// Byte counts as everything RetainGraph prints them: `512 B`, `3.1 KiB`, `1.2 MiB`, `2.0 GiB`
/// (powers of 1,024, named as such, one decimal).
///
/// Leak reports, growth reports, the at-exit check's groups, the sampled heap's estimates and
/// the command-line tool all write sizes through it, so a figure reads the same everywhere.
///
/// ```swift
/// ByteCount.description(3_174)        // "3.1 KiB"
/// ByteCount.description(1_258_291)    // "1.2 MiB"
/// ByteCount.description(-2_048)       // "-2.0 KiB"
/// ```
package enum ByteCount {
    private static let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]

    /// `count` bytes in the largest unit that keeps the number at or above 1.
    ///
    /// - Parameter count: A number of bytes; a negative count keeps its sign.
    /// - Returns: The text, such as `1.2 MiB`.
    package static func description(_ count: Int) -> String {
        count < 0
            ? "-" + description(UInt64(count.magnitude)) : description(UInt64(count))
    }

    /// `count` bytes in the largest unit that keeps the number at or above 1.
    package static func description(_ count: UInt64) -> String {
        guard count >= 1024 else { return "\(count) B" }
        return scaled(Double(count))
    }

    /// An estimate of `count` bytes (a sampled heap's), rounded to whole bytes below 1 KiB.
    package static func description(_ count: Double) -> String {
        guard count.isFinite else { return "? B" }
        if count < 0 { return "-" + description(-count) }
        guard count >= 1024 else { return "\(Int(count.rounded())) B" }
        return scaled(count)
    }

    /// `count` with its sign always written: `+1.2 MiB`, `-512 B`, `+0 B`.
    package static func signedDescription(_ count: Int) -> String {
        count < 0 ? description(count) : "+" + description(count)
    }

    private static func scaled(_ bytes: Double) -> String {
        var value = bytes / 1024
        var unit = 0
        while value >= 1023.95, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
