// PRIVATE SWIFT RUNTIME DETAILS, compiled once per type for the heap census: where a heap
// object's memory holds references, as offsets a scan can read with plain loads. The layouts
// come from the same metadata reading as the walker (stored fields with their ownership,
// closure capture descriptors, the standard collections), flattened: a struct's fields become
// the slots of whatever stores the struct.

/// How a slot holds the object whose address it stores.
package enum HeapSlotKind: UInt8, Sendable {
    /// A strong reference: the word is the object's address.
    case strong
    /// A native `weak` reference: the word is a side-table address, whose first word is the
    /// object's address (or null once the object is dead).
    case weak
    /// An `unowned` reference: the word is the object's address, which an unowned count keeps.
    case unowned
    /// An `unowned(unsafe)` reference: the word is an address that may be stale.
    case unownedUnsafe
}

/// A word of a value or object that holds a reference.
package struct HeapSlot: Sendable, Equatable {
    /// The byte offset from the start of the value or object.
    package var offset: Int
    package var kind: HeapSlotKind
    /// The name a report shows: a property path (`timer`, `state.timer`), a capture
    /// (`captures Owner`), an element (`element of [Entry]`).
    package var label: String
}

/// A value whose references depend on its run-time contents: a multi-case enum or an opaque
/// existential (`Any`, `any P`). Its bytes are copied during a scan and decoded afterwards.
package struct DynamicSlot: Sendable {
    package enum Shape: Sendable {
        /// An enum (or an optional of a non-reference type) of the given metadata.
        case enumValue
        /// An opaque existential container (three words of buffer, then the type).
        case existential
    }
    package var offset: Int
    package var size: Int
    package var shape: Shape
    /// The value's metadata (for an existential, the container's).
    package var metadata: UInt
    package var label: String
}

/// The references of a value of one type, relative to the value's start.
package struct ValueReferenceLayout: Sendable {
    package var slots: [HeapSlot] = []
    package var dynamics: [DynamicSlot] = []
    package var isEmpty: Bool { slots.isEmpty && dynamics.isEmpty }
    package init() {}
}

/// The tail-allocated elements of a standard collection's storage object.
package struct ElementRegion: Sendable {
    package enum Counting: Sendable {
        /// Array storage: `count` elements from `start`, the count stored at `countOffset`.
        case prefix(countOffset: Int, start: Int)
        /// Hashed storage: the buckets whose bit is set in the bitmap at `bitmapOffset`; the
        /// elements live at the address stored at `baseOffset`; `1 << scale` buckets, the scale
        /// an `Int8` at `scaleOffset`.
        case hashed(scaleOffset: Int, bitmapOffset: Int, baseOffset: Int)
    }
    package var counting: Counting
    package var stride: Int
    package var element: ValueReferenceLayout
}

/// What the census knows about heap objects of one metadata.
package struct HeapObjectLayout: Sendable {
    /// What kind of heap object this is.
    package enum Shape: Sendable {
        case instance, closureContext, box, collectionStorage, task, other
    }
    package var shape: Shape
    /// The type name a report shows (`MyApp.Owner`, `closure context`, `[Entry] storage`).
    package var typeName: String
    /// The references at fixed offsets from the object's start.
    package var fields = ValueReferenceLayout()
    /// Tail-allocated elements (array, dictionary keys and values, set members).
    package var regions: [ElementRegion] = []
    /// Why some of the object's references cannot be read, if that is so.
    package var problem: String?
    /// Where the census reads the rest of the object conservatively (every word that is a live
    /// object's address counts as a strong reference), when the layout could not say: the
    /// captures of a closure context after the first one that could not be decoded.
    package var conservativeFrom: Int?

    package init(shape: Shape, typeName: String) {
        self.shape = shape
        self.typeName = typeName
    }
}
