// PRIVATE SWIFT RUNTIME DETAILS (Swift 6.3, 64-bit, no Objective-C interop), read remotely.
//
// Relied on:
//   • A heap object's first word is its metadata; the metadata's first word its kind: class 0,
//     closure context (HeapLocalVariable) 0x400, box (HeapGenericLocalVariable) 0x500, error
//     box 0x501, task 0x502, job 0x503.
//   • Class metadata: nominal type descriptor @40. Every type's descriptor is listed in its
//     image's `swift5_type_metadata` section: one 32-bit relative pointer per type, the low two
//     bits its kind (0 direct, 1 indirect: the target holds the descriptor's address).
//   • A closure context's metadata: capture descriptor @16 (0, or in a `swift5_capture` section).
//   • A box's metadata: the boxed type's metadata @16.
//   • A C block on the heap starts with the address of `_NSConcreteMallocBlock`.

/// What a block on the target's heap is, by its first word.
enum ObjectKind: UInt8, Sendable {
    case instance, closureContext, box, errorBox, task, job, block
}

/// Decides whether a word is the address of Swift metadata of one of the target's images,
/// the way the in-process census does, but stricter: a class's descriptor must be in an
/// image's type list, not merely inside an image.
struct RemoteMetadataCheck {
    private let memory: ProcessMemory
    /// Every type descriptor the images list.
    private let descriptors: Set<UInt>
    private let captureSections: [Range<UInt>]
    /// The images that carry Swift metadata (where static metadata lives).
    private let swiftImages: [Range<UInt>]
    private let concurrency: Range<UInt>?
    /// `_NSConcreteMallocBlock` in the target, if a blocks runtime is loaded.
    let mallocBlockClass: UInt?
    private var cache: [UInt: ObjectKind?] = [:]

    init(_ memory: ProcessMemory) {
        self.memory = memory
        var descriptors = Set<UInt>()
        var captures: [Range<UInt>] = []
        var images: [Range<UInt>] = []
        for image in memory.images.images where image.hasSwiftMetadata {
            images.append(image.range)
            if let capture = image.section(named: "swift5_capture") { captures.append(capture) }
            guard let list = image.sectionContents(named: "swift5_type_metadata") else { continue }
            for index in 0..<list.bytes.count / 4 {
                let raw = list.bytes.loadUnaligned(fromByteOffset: 4 * index, as: Int32.self)
                let target = list.address &+ UInt(4 * index) &+ UInt(bitPattern: Int(raw & ~3))
                switch raw & 3 {
                case 0: descriptors.insert(target)
                case 1: if let indirect = memory.word(at: target) { descriptors.insert(indirect) }
                default: break
                }
            }
        }
        self.descriptors = descriptors
        captureSections = captures
        swiftImages = images
        concurrency = memory.images.image(named: "libswift_Concurrency.so")?.range
        mallocBlockClass =
            ["libBlocksRuntime.so", "libdispatch.so"].lazy.compactMap {
                memory.images.image(named: $0)?.address(ofSymbol: "_NSConcreteMallocBlock")
            }.first
    }

    /// The number of type descriptors the images list.
    var descriptorCount: Int { descriptors.count }

    /// What a heap block whose first word is `word` is, or nil when it is not an object.
    ///
    /// - Complexity: O(1) after the first call with the same word (answers are cached).
    mutating func kind(ofFirstWord word: UInt) -> ObjectKind? {
        if let known = cache[word] { return known }
        let kind = check(word)
        cache[word] = kind
        return kind
    }

    private func check(_ metadata: UInt) -> ObjectKind? {
        guard metadata >= 4096, metadata & 7 == 0, metadata < 1 << 47 else { return nil }
        if metadata == mallocBlockClass { return .block }
        guard memory.bytes(at: metadata, count: 48) != nil, let kind = memory.word(at: metadata)
        else { return nil }
        switch kind {
        case 0:
            guard let descriptor = memory.word(at: metadata + 40), descriptors.contains(descriptor),
                let flags = memory.uint32(at: descriptor), flags & 0x1F == 16  // kind: class
            else { return nil }
            return .instance
        case 0x400:
            guard isInSwiftImage(metadata), let descriptor = memory.word(at: metadata + 16),
                descriptor == 0 || captureSections.contains(where: { $0.contains(descriptor) })
            else { return nil }
            return .closureContext
        case 0x500:
            guard let boxed = memory.word(at: metadata + 16), isTypeMetadata(boxed) else {
                return nil
            }
            return .box
        case 0x501:
            return isInSwiftImage(metadata) ? .errorBox : nil
        case 0x502:
            return concurrency?.contains(metadata) == true ? .task : nil
        case 0x503:
            return concurrency?.contains(metadata) == true ? .job : nil
        default:
            return nil
        }
    }

    private func isInSwiftImage(_ address: UInt) -> Bool {
        swiftImages.contains { $0.contains(address) }
    }

    /// Whether `address` holds the metadata of a type a box can hold.
    private func isTypeMetadata(_ address: UInt) -> Bool {
        guard address >= 4096, address & 7 == 0, let kind = memory.word(at: address) else {
            return false
        }
        switch kind {
        case 0: return true
        case 0x200...0x202, 0x300...0x307: return true  // struct, enum, optional; tuples…
        default: return false
        }
    }
}
