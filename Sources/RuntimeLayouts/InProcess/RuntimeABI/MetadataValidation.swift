// PRIVATE SWIFT RUNTIME DETAILS: telling metadata from any other word, without faulting.
//
// The census reads words that may not be what they should: a block's first word before the
// runtime wrote its metadata, an object copied between its allocation and its initialiser's
// stores (its fields are whatever the block held before, a freed string's bytes for
// instance). A reference word read from such a copy is harmless (the census keeps only words
// that are addresses of its objects), but a metadata word is dereferenced: an object's to
// compile its layout, an existential's dynamic type to decode the value. So before a word is
// treated as metadata it is checked here, once per word (valid answers are cached; metadata
// is never freed): every byte read lies in readable memory (asked of the kernel), the kind is
// one the runtime defines for what is expected, and a nominal type's descriptor (emitted by
// the compiler, never allocated) lies in a loaded image.

import Locking
import RetainGraphUtilities

/// Checks that a word is the address of metadata before anything is read through it.
package enum MetadataValidation {
    private static let known = Locked<Set<UInt>>([])

    /// Whether `raw` is the metadata of a heap object the census records: a class, a closure
    /// context or box (heap-local metadata), an error box, a task or a job.
    package static func isObjectMetadata(_ raw: UInt) -> Bool {
        guard RuntimeABI.isPlausiblePointer(raw) else { return false }
        if known.withLock({ $0.contains(raw) }) { return true }
        guard ReadableMemory.contains(raw, length: 64),
            let address = UnsafeRawPointer(bitPattern: raw)
        else { return false }
        let valid: Bool
        switch TypeMetadata(address: address).kind {
        case .class:
            valid = hasDescriptorInImage(address, offset: 40)
        case .heapLocalVariable:
            // A closure context: its capture descriptor, when present, lies in an image.
            let descriptor = RuntimeABI.word(at: address, offset: 16)
            valid = descriptor == 0 || isInImage(descriptor)
        case .heapGenericLocalVariable:
            let boxed = RuntimeABI.word(at: address, offset: 16)
            valid =
                RuntimeABI.isPlausiblePointer(boxed) && ReadableMemory.contains(boxed, length: 16)
        case .errorObject, .task, .job:
            valid = true
        default:
            valid = false
        }
        if valid { known.withLock { _ = $0.insert(raw) } }
        return valid
    }

    /// Whether `raw` is the metadata of a type a value can have (what an existential's
    /// dynamic type word holds): a struct, enum, optional, class, tuple, function, existential
    /// or metatype, with a readable value witness table of sane size.
    package static func isTypeMetadata(_ raw: UInt) -> Bool {
        guard RuntimeABI.isPlausiblePointer(raw) else { return false }
        if known.withLock({ $0.contains(raw) }) { return true }
        // The value witness table pointer (-8), then the kind and the descriptor words.
        guard ReadableMemory.contains(raw - 8, length: 56),
            let address = UnsafeRawPointer(bitPattern: raw)
        else { return false }
        let kind = TypeMetadata(address: address).kind
        switch kind {
        case .unknown, .heapLocalVariable, .heapGenericLocalVariable, .errorObject, .task, .job:
            return false  // not the type of a value
        default: break
        }
        let witnesses = RuntimeABI.word(at: address, offset: -8)
        guard RuntimeABI.isPlausiblePointer(witnesses),
            ReadableMemory.contains(witnesses, length: 104),
            let table = UnsafeRawPointer(bitPattern: witnesses)
        else { return false }
        // Size and stride below 2^31, the stride at least the size.
        let size = RuntimeABI.word(at: table, offset: 64)
        let stride = RuntimeABI.word(at: table, offset: 72)
        guard size < 1 << 31, stride < 1 << 31, stride >= size else { return false }
        switch kind {
        case .class: guard hasDescriptorInImage(address, offset: 40) else { return false }
        case .struct, .enum, .optional:
            guard hasDescriptorInImage(address, offset: 8) else { return false }
        default: break
        }
        known.withLock { _ = $0.insert(raw) }
        return true
    }

    private static func hasDescriptorInImage(_ metadata: UnsafeRawPointer, offset: Int) -> Bool {
        isInImage(RuntimeABI.word(at: metadata, offset: offset))
    }

    private static func isInImage(_ raw: UInt) -> Bool {
        guard RuntimeABI.isPlausiblePointer(raw, alignment: 4),
            ReadableMemory.contains(raw, length: 16),
            let pointer = UnsafeRawPointer(bitPattern: raw)
        else { return false }
        return RuntimeABI.isInLoadedImage(pointer)
    }
}
