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
    /// The metadata kinds a census object can have: class (0 on Linux), closure context and
    /// box (0x400, 0x500), error box (0x501), task (0x502), job (0x503).
    private static let objectKinds: Set<UInt> = [0, 0x400, 0x500, 0x501, 0x502, 0x503]

    static func isMetadata(_ address: UInt) -> Bool {
        guard address >= 4096, address & 7 == 0, address < 1 << 47,
            CensusDoor.isReadable(address, count: 64)
        else { return false }
        let kind = CensusDoor.load(address)
        guard objectKinds.contains(kind) else { return false }
        switch kind {
        case 0:
            // A class: its nominal descriptor lies in a loaded image.
            let descriptor = CensusDoor.load(address &+ 40)
            return descriptor >= 4096 && descriptor & 3 == 0
                && CensusDoor.isReadable(descriptor, count: 16)
                && LayoutCompiler.isInLoadedImage(descriptor)
        case 0x400:
            // A closure context: its capture descriptor (when present) lies in an image.
            let descriptor = CensusDoor.load(address &+ 16)
            return descriptor == 0 || LayoutCompiler.isInLoadedImage(descriptor)
        case 0x500:
            let boxed = CensusDoor.load(address &+ 16)
            return boxed >= 4096 && CensusDoor.isReadable(boxed, count: 16)
        default:
            return true
        }
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
