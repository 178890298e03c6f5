import Locking
import RuntimeLayouts

/// Whether a word read from a census block is the address of Swift metadata, checked without
/// dereferencing anything that might not be mapped.
///
/// A block's first word is its metadata once the runtime initialised it; before that the census
/// has zeroed it (malloc mode). Under a sanitizer the census learns of frees through the
/// sanitizer's hook, and a block the hook missed would hold anything: this check is what stands
/// between such a word and a fault. It runs once per distinct word (the registry caches both
/// answers).
enum MetadataCheck {
    /// Whether a census block's first word is the metadata of a Swift heap object
    /// (``MetadataValidation/isObjectMetadata(_:)``, the one check shared with the rest of
    /// the package).
    static func isMetadata(_ address: UInt) -> Bool {
        MetadataValidation.isObjectMetadata(address)
    }

    /// Words that were not metadata when checked (a block whose first word was not written by
    /// the runtime yet, or that was freed without the census seeing it); cleared when large.
    private static let rejected = Locked(Set<UInt>())

    /// The index of the compiled layout (in `LayoutRegistry.shared`) of the metadata a census
    /// block's first word names, compiling it first if needed; nil when the word is not the
    /// address of Swift metadata the census can read. Each word is checked once.
    static func layoutIndex(ofMetadata word: UInt) -> Int32? {
        if rejected.withLock({ $0.contains(word) }) { return nil }
        guard isMetadata(word) else {
            rejected.withLock { rejected in
                if rejected.count > 4096 { rejected.removeAll() }
                rejected.insert(word)
            }
            return nil
        }
        return LayoutRegistry.shared.index(ofMetadata: word)
    }
}
