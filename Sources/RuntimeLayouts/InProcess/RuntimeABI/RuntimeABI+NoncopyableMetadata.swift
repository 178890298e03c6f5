// PRIVATE SWIFT RUNTIME DETAILS: metadata of noncopyable types named in text.
//
// Relied on (Swift 6.3 runtime, checked on Linux x86_64):
//   • The runtime's name lookup (`swift_getTypeByMangledNameInContext`) answers nil for a
//     noncopyable type (`Mutex<Int>`, `_MutexHandle`, even `_MutexHandle.Type`): its callers
//     may copy what it returns.
//   • A module-level nominal type `<len><module><len><name>V` (or `O` for an enum) has an
//     exported metadata accessor `$s…VMa` and descriptor `$s…VMn`. The accessor takes the
//     metadata request (0: complete) and, for up to three key arguments, the arguments'
//     metadata directly; it returns the metadata first (register rax / x0, as a C function
//     returning a pointer would). A struct descriptor's key argument count is a u16 @40.
//   • `_mangledTypeName` spells a type as its field record would, without substitutions that
//     reach outside it: a generic argument cut out of a longer name is only trusted when its
//     own spelling comes back unchanged.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension RuntimeABI {
    private typealias PlainAccessor = @convention(c) (Int) -> UnsafeRawPointer?
    private typealias GenericAccessor = @convention(c) (Int, UnsafeRawPointer) -> UnsafeRawPointer?

    /// The metadata of a noncopyable module-level struct or enum with at most one generic
    /// argument (`Synchronization.Mutex<[Entry]>`, `_Cell<x>`, `_MutexHandle`), found through
    /// its exported metadata accessor; nil for anything else.
    ///
    /// - Parameters:
    ///   - mangled: The type's mangled name, in text (no symbolic references).
    ///   - context: The descriptor of the declaring type, whose generic parameters the name
    ///     may mention.
    ///   - arguments: The generic arguments of the declaring type (nil when it is not generic).
    static func noncopyableType(
        _ mangled: Substring, context: TypeDescriptor, arguments: UnsafeRawPointer?
    ) -> Any.Type? {
        // Exported accessors are found with `dlsym`; a type of an executable (a test bundle's
        // own noncopyable struct) only has local symbols, in the image that declares the field.
        func symbol(_ name: String) -> UnsafeRawPointer? {
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map(UnsafeRawPointer.init)
                ?? ImageSymbols.address(
                    ofSymbol: name, inImageOf: UInt(bitPattern: context.address))
        }
        guard let (nominal, rest) = splitNominal(mangled),
            let accessor = symbol("$s\(nominal)Ma"), let descriptor = symbol("$s\(nominal)Mn")
        else { return nil }
        let isGeneric = descriptor.load(as: UInt32.self) & 0x80 != 0
        let metadata: UnsafeRawPointer?
        if rest.isEmpty {
            guard !isGeneric else { return nil }
            metadata = unsafeBitCast(accessor, to: PlainAccessor.self)(0)
        } else {
            guard isGeneric, descriptor.load(fromByteOffset: 40, as: UInt16.self) == 1,
                rest.first == "y", rest.last == "G",
                let argument = genericArgument(
                    rest.dropFirst().dropLast(), context: context, arguments: arguments)
            else { return nil }
            metadata = unsafeBitCast(accessor, to: GenericAccessor.self)(0, argument)
        }
        guard let metadata, isPlausiblePointer(UInt(bitPattern: metadata)) else { return nil }
        return TypeMetadata(address: metadata).type
    }

    /// `<len><module><len><name>` and its kind letter (`V`, `O`), and what follows.
    private static func splitNominal(_ mangled: Substring) -> (String, Substring)? {
        var index = mangled.startIndex
        for _ in 0..<2 {
            var digits = ""
            while index < mangled.endIndex, let digit = mangled[index].wholeNumberValue {
                digits.append(Character("\(digit)"))
                index = mangled.index(after: index)
            }
            guard let length = Int(digits), length > 0,
                mangled.distance(from: index, to: mangled.endIndex) > length
            else { return nil }
            index = mangled.index(index, offsetBy: length)
        }
        guard index < mangled.endIndex, mangled[index] == "V" || mangled[index] == "O" else {
            return nil
        }
        let end = mangled.index(after: index)
        return (String(mangled[..<end]), mangled[end...])
    }

    /// Whether a name cut out of a longer one means the same on its own: it has no substitution
    /// (`A…`, which counts the nodes before it) and no identifier spelled with word
    /// substitutions (`0…`, which reuse the words before it). Identifiers (`<len><text>`) are
    /// skipped whole. Doubtful forms (a generic parameter index `q0_`) count as not contained.
    static func isSelfContained(_ mangled: Substring) -> Bool {
        var index = mangled.startIndex
        while index < mangled.endIndex {
            let character = mangled[index]
            if character == "A" || character == "0" { return false }
            guard character.isASCII, let digit = character.wholeNumberValue else {
                index = mangled.index(after: index)
                continue
            }
            var length = digit
            index = mangled.index(after: index)
            while index < mangled.endIndex, mangled[index].isASCII,
                let next = mangled[index].wholeNumberValue
            {
                length = length * 10 + next
                guard length < 4096 else { return false }
                index = mangled.index(after: index)
            }
            guard mangled.distance(from: index, to: mangled.endIndex) >= length else {
                return false
            }
            index = mangled.index(index, offsetBy: length)
        }
        return true
    }

    /// The metadata of one generic argument: the declaring type's first parameter (`x`), a
    /// copyable type the runtime resolves (in the declaring type's context) whose name means
    /// the same on its own, or a noncopyable one.
    private static func genericArgument(
        _ mangled: Substring, context: TypeDescriptor, arguments: UnsafeRawPointer?
    ) -> UnsafeRawPointer? {
        if mangled == "x" {
            return arguments.flatMap { pointer(at: $0) }
        }
        let type = typeByMangledName(mangled, context: context, arguments: arguments)
        if let type,
            isSelfContained(mangled) || _mangledTypeName(type).map({ $0[...] == mangled }) == true
        {
            return TypeMetadata(type).address
        }
        return noncopyableType(mangled, context: context, arguments: arguments).map {
            TypeMetadata($0).address
        }
    }
}
