// PRIVATE SWIFT STANDARD LIBRARY DETAILS (64-bit; see the standard library's StringObject.swift).
//
// Relied on: a `String` is two words, its count and flags, then its object word. The object
// word's top four bits are its discriminator: bit 63 set for an immortal string (a literal in an
// image's constant data), bit 61 set for a small string (its bytes inline, no object). Otherwise
// the low 60 bits are the address of its storage object (`__StringStorage`, or
// `__SharedStringStorage` for a string sharing another's bytes).

/// A `String`'s object word, read as a reference.
package enum StringObject {
    /// The address of the storage object a `String`'s object word names, or 0 when the string
    /// has none (small, immortal, empty).
    @inline(__always)
    package static func storage(_ word: UInt) -> UInt {
        guard word >> 61 & 0b101 == 0 else { return 0 }
        return word & 0x0FFF_FFFF_FFFF_FFFF
    }
}
