// Stored properties whose type the compiler hides from reflection (noncopyable types such as
// `Mutex<Value>`, see RuntimeABI+NoncopyableFields.swift): named from their accessor's local
// symbol (ImageSymbols), otherwise read conservatively.

import ObjectGraph

extension LayoutCompiler {
    /// The most words of one hidden field that are read conservatively.
    static let maximumConservativeWords = 64

    /// Appends every pointer-sized word of `field` as a possible reference, read
    /// conservatively: a field whose type could not be named, so its bytes are all there is.
    ///
    /// The field ends where the next stored property starts, or at the end of the value (an
    /// instance's size for a class). A word becomes a reference only if it is the address of
    /// an object the reader knows (a live census object, an object the walk holds), as with a
    /// closure context's undecodable captures.
    static func appendConservatively(
        _ field: RuntimeField, among fields: [RuntimeField], of metadata: TypeMetadata,
        at base: Int, role: ReferenceRole, into layout: inout ValueLayout
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
                LayoutSlot(offset: base + offset, ownership: .conservative, role: role))
            offset += 8
            words += 1
        }
    }
}
