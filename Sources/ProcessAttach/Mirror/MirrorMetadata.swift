// PRIVATE SWIFT RUNTIME DETAILS (Swift 6.3, 64-bit, no Objective-C interop), read remotely.
//
// Relied on (besides what libswiftRemoteMirror knows):
//   • A heap object's first word is its metadata; the metadata's first word its kind
//     (`HeapObjectKind(metadataKind:)`). Class metadata: superclass @8, instance size u32 @24,
//     nominal type descriptor @40. Every type's descriptor is listed in its image's
//     `swift5_type_metadata` section: one 32-bit relative pointer per type, the low two bits its
//     kind (0 direct, 1 indirect: the target holds the descriptor's address).
//   • A closure context's metadata: u32 offset of the first capture @8, capture descriptor @16
//     (0, or in a `swift5_capture` section), whose u32 @8 counts the generic bindings.
//   • A box's metadata: u32 offset of the value @8, the boxed type's metadata @16.
//   • A C block on the heap starts with the address of `_NSConcreteMallocBlock`.
//   • Tasks and jobs have metadata inside libswift_Concurrency.

import ObjectGraph
import RetainGraphUtilities
import RuntimeLayouts

/// The metadata source of a stopped process's copy (or a core file): the toolchain's
/// libswiftRemoteMirror reading that memory, plus the images' own sections for what the mirror
/// does not answer (which words are metadata, a class's fields when the mirror cannot lower
/// one of them).
///
/// Every word it reads comes from the copy and is untrusted: it is bounds-checked there, never
/// followed in this process's memory, and type names read from it are escaped before they reach
/// a report. Not thread-safe, as the mirror's context is not: use it from one thread.
final class MirrorMetadata: MetadataSource, @unchecked Sendable {
    let mirror: RemoteMirror
    let memory: ProcessMemory
    /// Every type descriptor the images list.
    private let descriptors: Set<UInt>
    /// Every protocol descriptor the images list (`swift5_protocols`).
    let listedProtocols: Set<UInt>
    private let captureSections: [Range<UInt>]
    /// The images that carry Swift metadata (where static metadata lives).
    private let swiftImages: [Range<UInt>]
    private let concurrency: Range<UInt>?
    /// `_NSConcreteMallocBlock` in the target, if a blocks runtime is loaded.
    let mallocBlockClass: UInt?
    private var kindCache: [UInt: HeapObjectKind?] = [:]
    /// Class metadata refused because its superclass chain loops or runs on.
    private(set) var unendingChains = Set<UInt>()
    /// Object metadata refused because a type it leads the mirror to read failed
    /// ``isReadableType(_:)`` (a planted or corrupted generic argument, boxed type or
    /// superclass).
    private(set) var refusedMetadata = Set<UInt>()
    /// ``isReadableType(_:)``'s answers, by metadata address.
    var typeChecks: [UInt: Bool] = [:]
    var nameCache: [UInt64: String] = [:]
    var shapeCache: [UInt64: TypeShape?] = [:]

    init(mirror: RemoteMirror, memory: ProcessMemory) {
        self.mirror = mirror
        self.memory = memory
        var descriptors = Set<UInt>()
        var protocols = Set<UInt>()
        var captures: [Range<UInt>] = []
        var images: [Range<UInt>] = []
        for image in memory.images.images where image.hasSwiftMetadata {
            images.append(image.range)
            if let capture = image.section(named: "swift5_capture") { captures.append(capture) }
            if let list = image.sectionContents(named: "swift5_protocols") {
                // One relative pointer per protocol, the low bit set when indirect.
                for index in 0..<list.bytes.count / 4 {
                    let raw = list.bytes.loadUnaligned(fromByteOffset: 4 * index, as: Int32.self)
                    let target = list.address &+ UInt(4 * index) &+ UInt(bitPattern: Int(raw & ~1))
                    if raw & 1 == 0 {
                        protocols.insert(target)
                    } else if let indirect = memory.word(at: target) {
                        protocols.insert(indirect)
                    }
                }
            }
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
        listedProtocols = protocols
        captureSections = captures
        swiftImages = images
        concurrency = memory.images.image(named: "libswift_Concurrency.so")?.range
        mallocBlockClass =
            ["libBlocksRuntime.so", "libdispatch.so"].lazy.compactMap {
                memory.images.image(named: $0)?.address(ofSymbol: "_NSConcreteMallocBlock")
            }.first
    }

    /// Forgets what was learnt of metadata words, names and shapes (for a fuzzer that changes
    /// the memory between two readings).
    func forgetCaches() {
        kindCache = [:]
        nameCache = [:]
        shapeCache = [:]
        unendingChains = []
        refusedMetadata = []
        typeChecks = [:]
    }

    /// The number of type descriptors the images list.
    var descriptorCount: Int { descriptors.count }

    func objectKind(ofMetadata metadata: UInt) -> HeapObjectKind? {
        if let known = kindCache[metadata] { return known }
        let kind = check(metadata)
        kindCache[metadata] = kind
        return kind
    }

    private func check(_ metadata: UInt) -> HeapObjectKind? {
        guard metadata >= 4096, metadata & 7 == 0, metadata < 1 << 47 else { return nil }
        if metadata == mallocBlockClass { return .block }
        guard memory.bytes(at: metadata, count: 48) != nil, let word = memory.word(at: metadata),
            let kind = HeapObjectKind(metadataKind: word)
        else { return nil }
        switch kind {
        case .instance, .collectionStorage:
            guard isClassMetadata(metadata) else { return nil }
            guard hasSuperclassChain(metadata) else {
                unendingChains.insert(metadata)
                return nil
            }
            guard isReadableType(metadata) else {
                refusedMetadata.insert(metadata)
                return nil
            }
            return .instance
        case .closureContext:
            guard isInSwiftImage(metadata), let descriptor = memory.word(at: metadata + 16),
                descriptor == 0 || captureSections.contains(where: { $0.contains(descriptor) })
            else { return nil }
            return .closureContext
        case .box:
            guard let boxed = memory.word(at: metadata + 16), isTypeMetadata(boxed) else {
                return nil
            }
            guard isReadableType(boxed) else {
                refusedMetadata.insert(metadata)
                return nil
            }
            return .box
        case .errorBox:
            return isInSwiftImage(metadata) ? .errorBox : nil
        case .task, .job:
            return concurrency?.contains(metadata) == true ? kind : nil
        case .block:
            return nil
        }
    }

    /// Whether `metadata` is class metadata whose descriptor an image lists.
    func isClassMetadata(_ metadata: UInt) -> Bool {
        guard memory.word(at: metadata) == 0, let descriptor = memory.word(at: metadata + 40),
            descriptors.contains(descriptor), let flags = memory.uint32(at: descriptor)
        else { return false }
        return flags & 0x1F == 16  // a class
    }

    /// Whether an image lists `descriptor` among its types' descriptors.
    func isListedDescriptor(_ descriptor: UInt) -> Bool {
        descriptors.contains(descriptor)
    }

    /// The most classes a superclass chain may have.
    static let maximumSuperclasses = 64

    /// Whether the superclass chain of class metadata `metadata` ends (a null superclass)
    /// within ``maximumSuperclasses`` classes, each class metadata: the mirror follows it
    /// without a bound (a chain that loops hangs it, in `readInstanceStartFromClassMetadata`),
    /// so a chain that loops or runs on is never handed to it.
    func hasSuperclassChain(_ metadata: UInt) -> Bool {
        var seen: Set<UInt> = [metadata]
        var current = metadata
        for _ in 0..<Self.maximumSuperclasses {
            guard let superclass = memory.word(at: current + 8) else { return false }
            if superclass == 0 { return true }
            guard seen.insert(superclass).inserted, isClassMetadata(superclass) else {
                return false
            }
            current = superclass
        }
        return false
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

    func classType(ofMetadata metadata: UInt) -> TypeHandle? {
        let typeRef = mirror.typeRef(forMetadata: metadata)
        return typeRef == 0 ? nil : TypeHandle(typeRef)
    }

    func superclass(ofClassMetadata metadata: UInt) -> UInt? {
        guard let superclass = memory.word(at: metadata + 8), superclass != 0,
            isClassMetadata(superclass)
        else { return nil }
        return superclass
    }

    func name(of type: TypeHandle) -> String? {
        if let known = nameCache[type.raw] { return known }
        guard let name = mirror.name(of: type.raw) else { return nil }
        let readable = PrintableText.escaped(TypeNames.readable(name))
        nameCache[type.raw] = readable
        return readable
    }

    func containerName(of type: TypeHandle) -> String {
        TypeNames.unqualified(name(of: type) ?? "Any")
    }

    func instanceSize(ofClassMetadata metadata: UInt) -> Int? {
        memory.uint32(at: metadata + 24).map { Int($0) }
    }

    func boxedValue(ofBoxMetadata metadata: UInt) -> (type: TypeHandle?, offset: Int) {
        let offset = memory.uint32(at: metadata + 8).map { Int($0) } ?? 16
        guard let boxed = memory.word(at: metadata + 16) else { return (nil, offset) }
        let typeRef = mirror.typeRef(forMetadata: boxed)
        return (typeRef == 0 ? nil : TypeHandle(typeRef), offset)
    }
}
