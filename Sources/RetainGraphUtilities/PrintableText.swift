/// Text read from memory another program controls (type names, variable and thread names),
/// made safe to print: a terminal, a file or JSON receives it without escape sequences.
///
/// A process may be buggy or hostile: a type name in its metadata, a thread name or a string
/// can hold terminal control sequences (`ESC [ 2 J` clears the screen; OSC 52 writes to the
/// clipboard) or invalid UTF-8. Every such text passes through ``escaped(_:)`` once, where it
/// enters a snapshot, and every renderer can then print it as it is.
///
/// ```swift
/// PrintableText.escaped("App.\u{1B}[2JOwner")   // "App.\\u{1B}[2JOwner"
/// ```
package enum PrintableText {
    /// The longest text kept; longer text is cut and ends with `…`.
    package static let maximumLength = 4096

    /// `text` with every control character (C0, DEL, C1) and every bidirectional override
    /// written as `\u{…}`, and cut to ``maximumLength`` characters.
    ///
    /// - Complexity: O(*n*) in the text's length; text with nothing to escape is returned as it
    ///   is after one scan.
    package static func escaped(_ text: String) -> String {
        var needsWork = text.utf8.count > maximumLength
        if !needsWork {
            for scalar in text.unicodeScalars where isUnsafe(scalar) {
                needsWork = true
                break
            }
        }
        guard needsWork else { return text }
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= maximumLength {
                result += "…"
                break
            }
            if isUnsafe(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return result
    }

    /// The bytes of a C string read from another process, decoded as UTF-8 (invalid sequences
    /// replaced) and escaped.
    package static func decoding<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        escaped(String(decoding: bytes, as: UTF8.self))
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return true
        default: return false
        }
    }
}
