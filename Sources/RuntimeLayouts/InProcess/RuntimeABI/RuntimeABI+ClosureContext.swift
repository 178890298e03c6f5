// PRIVATE SWIFT RUNTIME DETAILS: closure contexts and boxes (see the compiler's GenHeap.cpp and
// RemoteInspection's closure-context lowering).
//
// Relied on:
//   • A closure context, and the box of a captured `var`, is a heap object whose metadata has
//     kind HeapLocalVariable (0x400): u32 offset-to-first-capture @8, capture descriptor
//     pointer @16 (null when reflection metadata was not emitted).
//   • CaptureDescriptor: u32 capture count, u32 metadata-source count, u32 binding count, then
//     one relative mangled-name pointer per capture, then (type, source) relative-pointer pairs.
//   • The context holds the generic bindings (one word each) at offset-to-first-capture, then
//     the captures in order, each aligned to its type's alignment.
//   • A metadata source `B<n>` says "the metadata for this generic parameter is binding n".
//   • A generic box (`swift_allocBox`) has kind HeapGenericLocalVariable (0x500): u32 value
//     offset @8, boxed type metadata @16.

import ObjectGraph
import RetainGraphUtilities

/// One captured value in a closure context or box, and how to read it.
struct CaptureSlot {
    enum Content {
        /// A value of the type, held with the ownership (weak/unowned storage wraps the type).
        case value(Any.Type, Ownership)
        /// A strong pointer to the box of a captured `var`.
        case box
        /// A captured function value.
        case function(FunctionStorage)
    }

    let index: Int
    let offset: Int
    let content: Content
}

/// The decoded layout of one context or box.
struct ContextLayout {
    var slots: [CaptureSlot] = []
    /// Why decoding stopped before the last capture, if it did (later captures are unread).
    var problem: String?
    /// Whether the layout depends on the instance (generic bindings) and must not be cached.
    var dependsOnInstance = false
}

extension RuntimeABI {
    /// The capture counts the walker accepts before calling a descriptor corrupt.
    static let maximumCaptures: UInt32 = 1024

    /// Decodes the captures of the closure context or box `object` (whose metadata kind is
    /// `.heapLocalVariable` or `.heapGenericLocalVariable`).
    ///
    /// - Parameter object: A retained heap object.
    static func contextLayout(of object: UnsafeRawPointer, metadata: TypeMetadata) -> ContextLayout
    {
        var layout = ContextLayout()
        let firstCapture = Int(metadata.address.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard firstCapture >= 16, firstCapture < 1 << 16 else {
            layout.problem = "implausible capture offset \(firstCapture)"
            return layout
        }
        if metadata.kind == .heapGenericLocalVariable {
            guard let boxed = pointer(at: metadata.address, offset: 16),
                TypeMetadata(address: boxed).kind.isValueOrClass
            else {
                layout.problem = "generic box with unreadable boxed type"
                return layout
            }
            layout.slots = [
                CaptureSlot(
                    index: 0, offset: firstCapture,
                    content: .value(TypeMetadata(address: boxed).type, .strong))
            ]
            return layout
        }
        guard let descriptor = pointer(at: metadata.address, offset: 16, alignment: 4) else {
            layout.problem = "no capture descriptor (reflection metadata not emitted)"
            return layout
        }
        guard isInLoadedImage(descriptor) else {
            layout.problem = "capture descriptor outside any loaded image"
            return layout
        }
        let captureCount = descriptor.loadUnaligned(as: UInt32.self)
        let sourceCount = descriptor.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        let bindingCount = descriptor.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        guard captureCount <= maximumCaptures, sourceCount <= maximumCaptures,
            bindingCount <= maximumCaptures
        else {
            layout.problem = "implausible capture descriptor counts"
            return layout
        }
        let capturesStart = descriptor + 12
        let sourcesStart = capturesStart + 4 * Int(captureCount)
        // Metadata sources: which binding holds the metadata of which generic parameter.
        var bindingSources: [(name: MangledTypeName, binding: Int)] = []
        for index in 0..<Int(sourceCount) {
            let record = sourcesStart + 8 * index
            guard let typeName = relativeDirect(at: record),
                let source = relativeDirect(at: record + 4).map(MangledTypeName.init(start:)),
                let bytes = source.bytes, bytes.first == UInt8(ascii: "B"), bytes.count > 1,
                let binding = Int(String(decoding: bytes.dropFirst(), as: UTF8.self))
            else { continue }
            bindingSources.append((MangledTypeName(start: typeName), binding))
        }
        layout.dependsOnInstance = bindingCount > 0
        var offset = firstCapture + 8 * Int(bindingCount)
        for index in 0..<Int(captureCount) {
            guard let namePointer = relativeDirect(at: capturesStart + 4 * index) else {
                layout.problem = "capture #\(index) has no type"
                return layout
            }
            let name = MangledTypeName(start: namePointer)
            let content: CaptureSlot.Content
            let size: Int
            let alignment: Int
            if name.isBox {
                (content, size, alignment) = (.box, 8, 8)
            } else if let storage = name.functionStorage {
                (content, size, alignment) = (.function(storage), storage == .thick ? 16 : 8, 8)
            } else if name.isLoweredFunction {
                // A lowered function type the walker cannot lay out (a differentiable one, a
                // convention it does not know): never resolved (see captureTypeNames).
                layout.problem = "capture #\(index) is a function the walker cannot decode"
                return layout
            } else if let type = resolveCapture(
                name, bindingSources: bindingSources, object: object, firstCapture: firstCapture,
                bindingCount: Int(bindingCount)),
                let ownership = name.referenceOwnership
            {
                let shape = valueLayout(of: type)
                (content, size, alignment) = (.value(type, ownership), shape.size, shape.alignment)
            } else {
                layout.problem = "capture #\(index) has a type the walker cannot decode"
                return layout
            }
            offset = (offset + alignment - 1) & ~(alignment - 1)
            layout.slots.append(CaptureSlot(index: index, offset: offset, content: content))
            offset += size
        }
        return layout
    }

    /// The qualified names of the capture types a non-generic closure context's capture
    /// descriptor lists (empty for a generic one, whose types depend on its bindings): resolved
    /// by the runtime, or else `Module.Name` from the descriptor a symbolic reference names
    /// (``MemoryReader/referencedTypeName(mangledNameAt:)``). A captured `var`'s box is `var`
    /// and a captured function `closure`, as the captures are named: their types are SIL types,
    /// which the runtime's resolver is never asked about (it aborts the process on some, such
    /// as `@Sendable () -> sending Base.AsyncIterator` captured beside a generic class's
    /// `self`).
    ///
    /// - Parameter metadata: A closure context's metadata (kind `.heapLocalVariable`).
    /// - Returns: The names, in order; empty when any is unknown.
    static func captureTypeNames(ofContext metadata: TypeMetadata) -> [String] {
        guard metadata.kind == .heapLocalVariable,
            let descriptor = pointer(at: metadata.address, offset: 16, alignment: 4),
            isInLoadedImage(descriptor)
        else { return [] }
        let captureCount = descriptor.loadUnaligned(as: UInt32.self)
        let bindingCount = descriptor.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        guard bindingCount == 0, captureCount <= maximumCaptures else { return [] }
        var names: [String] = []
        for index in 0..<Int(captureCount) {
            guard let start = relativeDirect(at: descriptor + 12 + 4 * index) else { return [] }
            let name = MangledTypeName(start: start)
            if name.isBox {
                names.append("var")
            } else if name.isLoweredFunction {
                names.append("closure")
            } else if let type = name.resolve() {
                names.append(_typeName(type, qualified: true))
            } else if let name = LocalMemory().referencedTypeName(
                mangledNameAt: UInt(bitPattern: start))
            {
                names.append(name)
            } else {
                return []
            }
        }
        return names
    }

    /// Resolves a capture's type: from a generic binding when a metadata source names it,
    /// otherwise by the runtime.
    private static func resolveCapture(
        _ name: MangledTypeName, bindingSources: [(name: MangledTypeName, binding: Int)],
        object: UnsafeRawPointer, firstCapture: Int, bindingCount: Int
    ) -> Any.Type? {
        for source in bindingSources where source.name.hasSameBytes(as: name) {
            guard source.binding >= 0, source.binding < bindingCount,
                let metadata = pointer(at: object, offset: firstCapture + 8 * source.binding),
                TypeMetadata(address: metadata).kind.isValueOrClass
            else { return nil }
            return TypeMetadata(address: metadata).type
        }
        return name.resolve()
    }

    /// Size, alignment, stride and triviality of a type, from its value witnesses.
    static func valueLayout(of type: Any.Type)
        -> (size: Int, alignment: Int, stride: Int, isPOD: Bool)
    {
        func measure<T>(_: T.Type) -> (Int, Int, Int, Bool) {
            (
                MemoryLayout<T>.size, MemoryLayout<T>.alignment, MemoryLayout<T>.stride,
                _isPOD(T.self)
            )
        }
        return measure(type)
    }
}

extension MetadataKind {
    /// Whether metadata of this kind describes a type a value can have (the only kinds the
    /// walker accepts as generic bindings or boxed types).
    var isValueOrClass: Bool {
        switch self {
        case .class, .struct, .enum, .optional, .tuple, .function, .existential, .metatype,
            .existentialMetatype, .opaque, .foreignClass:
            return true
        default:
            return false
        }
    }
}
