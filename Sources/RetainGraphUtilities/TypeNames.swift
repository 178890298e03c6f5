/// Type and symbol names as a person reads them, the same whoever read them (the census in
/// this process, an attach or a core file from outside).
package enum TypeNames {
    /// `name` as reports spell it, the same whoever read it (the census in process, an attach
    /// from outside): without the addresses the demangler prints for private and local contexts
    /// (``removingContextAddresses(_:)``), private discriminators
    /// (``removingDiscriminators(_:)``) or empty argument lists (``removingEmptyArguments(_:)``).
    package static func readable(_ name: String) -> String {
        removingEmptyArguments(removingDiscriminators(removingContextAddresses(name)))
    }

    /// A demangled name without the addresses printed for private and local contexts:
    /// `M.(unknown context at $7f…).(unknown context at $7f…).Name` → `M.Name`, and
    /// `M.(Name in $7f…)` → `M.Name`.
    ///
    /// - Complexity: O(*n*) in the name's length.
    package static func removingContextAddresses(_ name: String) -> String {
        guard name.contains("$") else { return name }
        var result = ""
        result.reserveCapacity(name.count)
        var rest = Substring(name)
        // Markers may sit inside other parentheses (`((unknown context at $7f…).Box) -> ()`):
        // each is found by its own text, not by matching parentheses.
        while let open = rest.firstIndex(of: "(") {
            result += rest[..<open]
            let inner = rest[rest.index(after: open)...]
            let unknown = "unknown context at $"
            if inner.hasPrefix(unknown), let close = inner.firstIndex(of: ")"),
                inner[inner.index(inner.startIndex, offsetBy: unknown.count)..<close]
                    .allSatisfy(\.isHexDigit)
            {
                rest = inner[inner.index(after: close)...]
                if rest.hasPrefix(".") { rest = rest.dropFirst() }
                continue
            }
            // `(Name in $7f…)`: an identifier, the marker, hex digits.
            if let marker = Self.range(of: " in $", in: inner),
                let close = inner[marker.upperBound...].firstIndex(of: ")"),
                !inner[..<marker.lowerBound].isEmpty,
                !inner[..<marker.lowerBound].contains(where: { "() ,<>:".contains($0) }),
                inner[marker.upperBound..<close].allSatisfy(\.isHexDigit)
            {
                result += inner[..<marker.lowerBound]
                rest = inner[inner.index(after: close)...]
                continue
            }
            result += "("
            rest = inner
        }
        result += rest
        return result
    }

    /// A name without the empty generic argument lists the remote demangler prints for a
    /// non-generic type nested in a generic one: `AsyncStream<E>._Storage<>` →
    /// `AsyncStream<E>._Storage`.
    package static func removingEmptyArguments(_ name: String) -> String {
        guard name.contains("<>") else { return name }
        return name.replacing("<>", with: "")
    }

    /// The modules that ship with the toolchain: the Swift runtime and standard library,
    /// Foundation and CoreFoundation, Dispatch, and the test frameworks. Their code is never the
    /// line a user changes, and their classes are the ones allocated with tail bytes (collection
    /// and string storage, `ManagedBuffer`, key paths, CoreFoundation objects).
    package static let toolchainModules: Set<String> = [
        "Swift", "_Concurrency", "_StringProcessing", "Synchronization", "Observation",
        "Distributed", "RegexBuilder", "Foundation", "FoundationEssentials",
        "FoundationInternationalization", "FoundationNetworking", "FoundationXML",
        "CoreFoundation", "Dispatch", "XCTest", "Testing",
    ]

    /// The module of a qualified type name (`App.Owner` → `App`, `Swift.Array<App.Entry>` →
    /// `Swift`); nil when the name has no module before its first dot (`closure context`,
    /// `(App.A, App.B)`).
    package static func module(of typeName: String) -> Substring? {
        guard let dot = typeName.firstIndex(of: "."), dot > typeName.startIndex else { return nil }
        let module = typeName[..<dot]
        guard module.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return module
    }

    /// A type name without its module (`App.Owner` → `Owner`), as roles name what they
    /// capture; a generic name whose first dot is inside its arguments, or a name with a space
    /// before its first dot (`closure context (captures A.B)`), is kept whole.
    package static func withoutModule(_ typeName: String) -> String {
        guard let dot = typeName.firstIndex(of: "."),
            !typeName[..<dot].contains(where: { $0 == "<" || $0 == " " })
        else { return typeName }
        return String(typeName[typeName.index(after: dot)...])
    }

    /// `name` with every dotted path reduced to its last component (no module, no enclosing
    /// type), as `_typeName(qualified: false)` prints in-process names:
    /// `Swift.Optional<App.Outer.Entry>` → `Optional<Entry>`.
    ///
    /// - Complexity: O(*n*) in the name's length.
    package static func unqualified(_ name: String) -> String {
        var result = ""
        var token = ""
        func flush() {
            if let dot = token.lastIndex(of: "."), token.first?.isLetter == true {
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

    /// The name a capture is shown under: its type without module or `Optional`
    /// (`Swift.Optional<App.Owner>` → `Owner`).
    package static func captureName(_ name: String) -> String {
        let short = unqualified(name)
        if short.hasPrefix("Optional<"), short.hasSuffix(">") {
            return String(short.dropFirst(9).dropLast())
        }
        if short.hasSuffix("?") { return String(short.dropLast()) }
        return short
    }

    /// The generic base of a name: `Swift.Array<App.Entry>` → `Swift.Array`.
    package static func genericBase(_ name: String) -> Substring {
        name.prefix { $0 != "<" }
    }

    /// `name` without the discriminators the compiler gives private declarations:
    /// `App.(Cache in _4B9AEA28C6143B4D1A64945DF030C46F)` becomes `App.Cache`, and
    /// `App.(registry in _D7F0…) : [String]` becomes `App.registry : [String]`.
    ///
    /// Two private declarations of one module with the same name (in two files) then read the
    /// same; callers that can see both keep the discriminators for them
    /// (``withoutDiscriminators(_:)``).
    ///
    /// - Complexity: O(*n*) in the name's length.
    package static func removingDiscriminators(_ name: String) -> String {
        guard name.contains(" in _") else { return name }
        var result = ""
        result.reserveCapacity(name.count)
        var rest = Substring(name)
        while let open = rest.firstIndex(of: "(") {
            result += rest[..<open]
            let inner = rest[rest.index(after: open)...]
            // "(" identifier " in _" hex digits ")"
            guard let marker = Self.range(of: " in _", in: inner),
                let close = inner[marker.upperBound...].firstIndex(of: ")"),
                !inner[..<marker.lowerBound].isEmpty,
                !inner[..<marker.lowerBound].contains(where: { "() ,<>:".contains($0) }),
                inner[marker.upperBound..<close].allSatisfy(\.isHexDigit)
            else {
                result += "("
                rest = inner
                continue
            }
            result += inner[..<marker.lowerBound]
            rest = inner[inner.index(after: close)...]
        }
        result += rest
        return result
    }

    /// The first range of `pattern` in `text` (the standard library's `firstRange(of:)` needs
    /// macOS-style availability checks the package does not use).
    private static func range(of pattern: String, in text: Substring) -> Range<Substring.Index>? {
        let first = pattern.first
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == first, text[index...].starts(with: pattern) {
                return index..<text.index(index, offsetBy: pattern.count)
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// Each name without discriminators, except names that would then read the same as another
    /// name in `names` (those keep theirs).
    package static func withoutDiscriminators(_ names: [String]) -> [String] {
        let stripped = names.map(removingDiscriminators)
        var distinctOriginals: [String: Set<String>] = [:]
        for (original, short) in zip(names, stripped) {
            distinctOriginals[short, default: []].insert(original)
        }
        return zip(names, stripped).map { original, short in
            (distinctOriginals[short]?.count ?? 0) > 1 ? original : short
        }
    }
}
