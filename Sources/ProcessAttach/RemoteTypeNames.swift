import Foundation

/// The spellings reports use for type names.
enum RemoteTypeNames {
    /// `name` without module qualification: `Swift.Optional<App.Entry>` → `Optional<Entry>`.
    ///
    /// Each dotted path loses its first component (the module), as `_typeName(qualified:
    /// false)` prints in-process names.
    static func unqualified(_ name: String) -> String {
        var result = ""
        var token = ""
        func flush() {
            if let dot = token.firstIndex(of: "."), token.first?.isLetter == true {
                result += token[token.index(after: dot)...]
            } else {
                result += token
            }
            token = ""
        }
        for character in name {
            if character.isLetter || character.isNumber || character == "_" || character == "."
                || character == "$"
            {
                token.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }

    /// The name a capture is shown under: its type without module or `Optional`.
    static func captureName(_ name: String) -> String {
        let short = unqualified(name)
        if short.hasPrefix("Optional<"), short.hasSuffix(">") {
            return String(short.dropFirst(9).dropLast())
        }
        if short.hasSuffix("?") { return String(short.dropLast()) }
        return short
    }

    /// Whether a capture of this type is the box of a captured `var`: the remote demangler
    /// spells a box's type as a SIL box (`<> { var Swift.Int } <>`), or gives no name or a
    /// builtin one; no Swift type's name starts with `<` or `{`.
    static func isBox(_ name: String) -> Bool {
        name.isEmpty || name.hasPrefix("Builtin.") || name.first == "<" || name.first == "{"
    }

    /// The generic base of a demangled name: `Swift.Array<App.Entry>` → `Swift.Array`.
    static func base(_ name: String) -> Substring {
        name.prefix { $0 != "<" }
    }
}
