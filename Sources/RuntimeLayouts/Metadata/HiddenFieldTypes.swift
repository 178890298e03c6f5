// PRIVATE SWIFT RUNTIME DETAILS (Swift 6.3 compiler; see InProcess/RuntimeABI/
// RuntimeABI+NoncopyableFields.swift): a field record whose type is always noncopyable (a
// `Mutex<Value>`) holds, instead of the type's mangled name, the marker 0x09 and a 4-byte relative
// reference to an accessor; the accessor's local symbol is named `get_type_metadata
// <generic signature><mangled type> noncopyable`.

/// How the compiler hides the type of a noncopyable stored property from reflection, and how a
/// reader finds it again from the image's full symbol table: the one statement of it for this
/// process's runtime and a remote mirror.
package enum HiddenFieldTypes {
    /// The first byte of a field record's mangled name that is an accessor reference.
    package static let accessorMarker: UInt8 = RuntimeABI.accessorReferenceMarker

    /// The generic signature and mangled type in an accessor symbol's name
    /// (`get_type_metadata 15Synchronization5MutexVySay3App5OwnerCGG noncopyable` →
    /// `15Synchronization5MutexVySay3App5OwnerCGG`), or nil for another symbol.
    package static func mangledType(inAccessorSymbol name: String) -> String? {
        RuntimeABI.accessorMangledType(symbolName: name)
    }
}
