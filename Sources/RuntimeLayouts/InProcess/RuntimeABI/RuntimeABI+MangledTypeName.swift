// PRIVATE SWIFT RUNTIME DETAILS: mangled type names as stored in field records and capture
// descriptors (docs/ABI/Mangling.rst in the Swift repository).
//
// Relied on:
//   • A mangled name ends at a NUL byte, except that bytes 0x01–0x17 start a symbolic reference
//     followed by a 4-byte relative offset and bytes 0x18–0x1F one followed by a pointer; those
//     payload bytes may contain NUL and are skipped (as the runtime's demangler does).
//   • Reference storage is a suffix on the referent: `Xw` weak, `Xo` unowned, `Xu` unowned(unsafe).
//   • Boxes of captured `var`s are SIL box types: suffix `Xx` (with layout), `XX` (generic) or the
//     older `Xb`. They are stored as one strong pointer to the box.
//   • Lowered function types in captures are "impl function types": `<types> I <attributes> _`,
//     whose callee convention `t` (or a C/block representation) means one thin pointer, and
//     `y`/`g`/`x` mean a thick (function, context) pair.

import ObjectGraph

/// How a captured function value is stored.
enum FunctionStorage: Equatable {
    /// A function pointer and a context (two words).
    case thick
    /// A bare function pointer (one word), with nothing to follow.
    case thin
}

/// A mangled type name in the compiler's reflection sections.
struct MangledTypeName {
    let start: UnsafeRawPointer

    /// The longest name the walker reads; longer ones are treated as unreadable.
    static let maximumLength = 4096

    /// The name's length in bytes, skipping over symbolic references; nil when implausibly long.
    var length: Int? {
        var index = 0
        while index < Self.maximumLength {
            let byte = start.load(fromByteOffset: index, as: UInt8.self)
            switch byte {
            case 0: return index
            case 0x01...0x17: index += 1 + 4
            case 0x18...0x1F: index += 1 + MemoryLayout<UInt>.size
            default: index += 1
            }
        }
        return nil
    }

    /// The name's bytes (symbolic references included as raw bytes).
    var bytes: [UInt8]? {
        guard let length else { return nil }
        return Array(UnsafeRawBufferPointer(start: start, count: length))
    }

    /// The reference storage the suffix declares (`.strong` when there is none): `Xw` weak
    /// (the stored word is a weak reference, never an object pointer), `Xo` unowned (the
    /// object pointer, holding an unowned count), `Xu` unowned(unsafe) (the object pointer,
    /// holding nothing).
    var referenceOwnership: Ownership? {
        guard let bytes, bytes.count >= 2 else { return bytes == nil ? nil : .strong }
        guard bytes[bytes.count - 2] == UInt8(ascii: "X") else { return .strong }
        switch bytes[bytes.count - 1] {
        case UInt8(ascii: "w"): return .weak
        case UInt8(ascii: "o"): return .unowned
        case UInt8(ascii: "u"): return .unownedUnsafe
        default: return .strong
        }
    }

    /// Whether the name is a SIL box type (a captured `var`).
    var isBox: Bool {
        guard let bytes, bytes.count >= 2, bytes[bytes.count - 2] == UInt8(ascii: "X") else {
            return false
        }
        let last = bytes[bytes.count - 1]
        return last == UInt8(ascii: "x") || last == UInt8(ascii: "X") || last == UInt8(ascii: "b")
    }

    /// Whether the name is a lowered ("impl") function type, `<types> I <attributes> _`: a SIL
    /// type, which the runtime's resolver must not be asked about (it aborts the process on
    /// some, such as one with a `sending` generic result).
    var isLoweredFunction: Bool { implFunctionAttributes != nil }

    /// The attribute letters of an impl function type (between its `I` and the final `_`), or
    /// nil when the name is not one.
    private var implFunctionAttributes: [Character]? {
        guard let bytes, bytes.count >= 3, bytes.last == UInt8(ascii: "_") else { return nil }
        // Walk back over the attribute letters to the `I` that starts them.
        var marker = bytes.count - 2
        while marker >= 0, bytes[marker] != UInt8(ascii: "I") {
            let byte = bytes[marker]
            let isLetter =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            guard isLetter else { return nil }
            marker -= 1
        }
        guard marker >= 0 else { return nil }
        return bytes[(marker + 1)..<(bytes.count - 1)].map { Character(UnicodeScalar($0)) }
    }

    /// How a lowered function type is stored, or nil when the name is not an impl function type
    /// or its attributes are not understood (differentiable functions, unknown conventions).
    var functionStorage: FunctionStorage? {
        guard var attributes = implFunctionAttributes else { return nil }
        // Pattern/invocation substitutions and pseudo-generic markers come first.
        while let first = attributes.first, "sIP".contains(first) { attributes.removeFirst() }
        if attributes.first == "e" { attributes.removeFirst() }
        guard let callee = attributes.first else { return nil }
        attributes.removeFirst()
        let representation = attributes.first
        switch callee {
        case "t": return .thin
        case "y", "g", "x":
            if let representation, "BCMJW".contains(representation) { return .thin }
            return .thick
        default: return nil  // differentiability kinds and anything newer
        }
    }

    /// Whether the name has the same bytes as `other`.
    func hasSameBytes(as other: MangledTypeName) -> Bool {
        guard let mine = bytes, let theirs = other.bytes else { return false }
        return mine == theirs
    }

    /// The type the name denotes, resolved by the runtime without a generic context.
    ///
    /// Reference storage suffixes are looked through (a `weak var x: T?` resolves to `T?`).
    /// Names that mention generic parameters resolve to nil. Never pass a SIL type (a lowered
    /// function, ``isLoweredFunction``; a box, ``isBox``): the runtime decodes some and aborts
    /// the process on others.
    ///
    /// The corresponding runtime function is `swift_getTypeByMangledNameInContext`.
    func resolve() -> Any.Type? {
        guard let length, length > 0 else { return nil }
        return _getTypeByMangledNameInContext(
            start.assumingMemoryBound(to: UInt8.self), UInt(length),
            genericContext: nil, genericArguments: nil)
    }
}
