// Stored properties whose type the compiler hides from reflection (noncopyable types such as
// `Mutex<Value>`, see RuntimeABI+NoncopyableFields.swift): named from their accessor's symbol
// when a symbol lookup is installed, otherwise read conservatively.

extension HeapLayouts {
    /// The most words of one hidden field that are read conservatively.
    static let maximumConservativeWords = 64

    /// Installs the lookup that names the local data symbol holding an address.
    ///
    /// The compiler hides the type of a noncopyable stored property (a `Mutex`, an `Atomic`)
    /// behind an accessor that, on Linux, always answers `()`; the accessor's local symbol in
    /// the image's `.symtab` still spells the real type. A module that reads symbol tables (the
    /// heap census) installs this once; until then such fields are read conservatively.
    ///
    /// - Parameter lookup: Returns the name of the local data symbol whose storage holds the
    ///   address, or nil. Called while layouts compile, never during a scan.
    package static func setLocalSymbolLookup(_ lookup: @escaping @Sendable (UInt) -> String?) {
        RuntimeABI.localSymbolLookup.withLock { $0 = lookup }
    }

    /// Appends every pointer-sized word of `field` as a possible strong reference: a field
    /// whose type could not be named, so its bytes are all there is.
    ///
    /// The field ends where the next stored property starts, or at the end of the value (an
    /// instance's size for a class). A word becomes a reference only if it is the address of a
    /// live census object, as with a closure context's undecodable captures.
    static func appendConservatively(
        _ field: RuntimeField, among fields: [RuntimeField], of metadata: TypeMetadata,
        at base: Int, label: String, into layout: inout ValueReferenceLayout
    ) {
        let containerSize: Int
        switch metadata.kind {
        case .class:
            containerSize = Int(
                metadata.address.loadUnaligned(fromByteOffset: 24, as: UInt32.self))
        default:
            containerSize = RuntimeABI.valueLayout(of: metadata.type).size
        }
        let end = fields.lazy.map(\.offset).filter { $0 > field.offset }.min() ?? containerSize
        var offset = (field.offset + 7) & ~7
        var words = 0
        while offset + 8 <= end, words < maximumConservativeWords {
            layout.slots.append(
                HeapSlot(
                    offset: base + offset, kind: .strong,
                    label: "\(label) (read conservatively)"))
            offset += 8
            words += 1
        }
    }
}
