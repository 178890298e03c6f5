#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The Swift runtime's demangler, exported by `libswiftCore`.
///
/// Declared here rather than written anew: the runtime already carries a complete demangler.
/// Returns a `malloc`ed C string the caller frees, or `nil` when `mangledName` is not a Swift
/// symbol. `flags` must be 0.
@_silgen_name("swift_demangle")
private func runtimeDemangle(
    _ mangledName: UnsafePointer<CChar>?,
    _ mangledNameLength: Int,
    _ outputBuffer: UnsafeMutablePointer<CChar>?,
    _ outputBufferSize: UnsafeMutablePointer<Int>?,
    _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?

/// Readable names for mangled symbols, and the facts a report needs from a mangled name.
package enum Demangling {
    /// The readable form of a symbol name.
    ///
    /// Swift symbols are demangled by the runtime's `swift_demangle`; a trailing ` -> ()` is
    /// dropped for brevity. Anything else (C, C++ or already readable names) is returned as is.
    ///
    /// - Parameter rawName: The symbol name as the binary spells it, such as
    ///   `$s5MyApp5OwnerC5startyyF`.
    /// - Returns: The readable name, e.g. `MyApp.Owner.start()`.
    /// - Complexity: About 2.5 µs per Swift symbol; callers cache the result.
    package static func demangle(_ rawName: String) -> String {
        guard isSwiftSymbol(rawName) else { return rawName }
        let demangled: String? = rawName.withCString { pointer in
            guard let result = runtimeDemangle(pointer, strlen(pointer), nil, nil, 0) else {
                return nil
            }
            defer { free(result) }
            return String(cString: result)
        }
        guard let name = demangled, !name.isEmpty else { return rawName }
        if name.hasSuffix(" -> ()") {
            return String(name.dropLast(6))
        }
        return name
    }

    /// `name` without its ELF symbol version: `pthread_cond_init@@GLIBC_2.3.2` →
    /// `pthread_cond_init`.
    ///
    /// Symbol tables of versioned libraries (the C library) spell their names so; Swift and C++
    /// manglings never contain `@`.
    static func withoutSymbolVersion(_ name: String) -> String {
        guard let at = name.firstIndex(of: "@"), at != name.startIndex else { return name }
        return String(name[..<at])
    }

    /// Whether a raw name uses one of Swift's mangling prefixes.
    static func isSwiftSymbol(_ rawName: String) -> Bool {
        rawName.hasPrefix("$s") || rawName.hasPrefix("$e") || rawName.hasPrefix("_$s")
            || rawName.hasPrefix("$S") || rawName.hasPrefix("_T0")
    }

    /// The module a Swift symbol belongs to, read from its mangling.
    ///
    /// The first entity of a mangled name is its module: `$s5MyApp…` belongs to `MyApp`; the
    /// standard-library shorthands `$ss…` and `$sS<letter>…` (such as `$sSa` for `Array`) to
    /// `Swift`, `$sSc…` to `_Concurrency`, and `$sSo…`/`$sSC…` to `__C` (imported C).
    /// Thunks that start with a type rather than a module (reabstraction thunks) have none.
    ///
    /// - Parameter rawName: The symbol name as the binary spells it.
    /// - Returns: The module name, or `nil` for non-Swift symbols and for manglings that do not
    ///   start with a module.
    static func moduleName(ofMangled rawName: String) -> String? {
        let prefixes = ["_$s", "$s", "$e", "$S", "_T0"]
        guard let prefix = prefixes.first(where: { rawName.hasPrefix($0) }) else { return nil }
        let rest = rawName.utf8.dropFirst(prefix.utf8.count)
        guard let first = rest.first else { return nil }
        if first == UInt8(ascii: "s") { return "Swift" }
        if first == UInt8(ascii: "S") {
            // A known-type substitution: `So`/`SC` are imported C, `Sc…` the concurrency
            // library, every other `S<letter>` a standard-library type.
            switch rest.dropFirst().first {
            case UInt8(ascii: "o"), UInt8(ascii: "C"): return "__C"
            case UInt8(ascii: "c"): return "_Concurrency"
            case .some: return "Swift"
            case .none: return nil
            }
        }
        var length = 0
        var digits = 0
        for byte in rest {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
            length = length * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            if length > 4096 { return nil }
        }
        // A leading 0 marks a punycode or word-substituted identifier: not a plain module name.
        guard digits > 0, length > 0, rest.first != UInt8(ascii: "0") else { return nil }
        let name = rest.dropFirst(digits).prefix(length)
        guard name.count == length else { return nil }
        return String(decoding: name, as: UTF8.self)
    }

    /// Whether a raw name is a compiler-generated Swift thunk (reabstraction, partial-apply
    /// forwarder, protocol witness, dispatch or merged function).
    ///
    /// Used only when the `Runtime` module could not classify the symbol itself.
    static func isThunk(mangled rawName: String) -> Bool {
        guard isSwiftSymbol(rawName) else { return false }
        let suffixes = [
            "TR", "Tr", "TA", "Ta", "TW", "Tw", "Tj", "Tq", "TD", "Td", "To", "TO", "Tm",
        ]
        return suffixes.contains { rawName.hasSuffix($0) }
    }
}
