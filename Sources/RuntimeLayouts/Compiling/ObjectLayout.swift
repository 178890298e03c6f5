// PRIVATE SWIFT RUNTIME DETAILS, compiled once per type: where a heap object's memory holds
// references, as offsets a reader can load with plain loads, each with its ownership and the
// role a report shows. One compiler (LayoutCompiler) makes them from what a metadata source says
// (this process's runtime, or a remote mirror over another process's memory); one executor
// (ObjectReader) reads heaps with them (the census's, a stopped process's copy, a core file), and
// the reflection walk reads the objects it retains with them. So whatever one sees, the others
// see.
//
// A struct's fields become the slots of whatever stores the struct; a closure context's
// captures, a box's value and a collection storage's elements are slots of those objects.

import ObjectGraph

/// The first part of the role of the references found in one value: which holds the value (a
/// stored property, a capture, an element…). The path inside the value completes it.
package enum RoleBase: Hashable, Sendable {
    /// A stored property of an instance (the path is the property path).
    case property
    /// A closure context's capture of a value of the named type.
    case capture(String)
    /// An element of the named array or set storage.
    case element(String)
    /// A key of the named dictionary storage.
    case key(String)
    /// A value of the named dictionary storage.
    case value(String)
    /// The value of a captured variable's box.
    case boxed

    /// The role of a reference at `path` inside a value this base holds.
    package func role(_ path: String) -> ReferenceRole {
        switch self {
        case .property: return .storedProperty(name: path)
        case .capture(let name): return .capture(name: path.isEmpty ? name : "\(name).\(path)")
        case .element(let collection): return .element(collection: collection, path: path)
        case .key(let collection): return .dictionaryKey(collection: collection, path: path)
        case .value(let collection): return .dictionaryValue(collection: collection, path: path)
        case .boxed: return .boxedValue(path: path)
        }
    }
}

/// A word of a value or object that holds a reference.
package struct LayoutSlot: Sendable, Equatable {
    /// The byte offset from the start of the value or object.
    package var offset: Int
    /// How the word holds its target. A `weak` word is a side-table address, whose first word
    /// is the object (null once it died); every other kind's word is the object's address.
    package var ownership: Ownership
    /// Why the holder holds the target, as a report shows it.
    package var role: ReferenceRole
    /// Whether the word is a thick function's context: when it is not a closure context but
    /// an instance, the compiler made the closure's only capture its context, and the role
    /// becomes a capture of that instance (`ReferenceRole.capturing(_:)`).
    package var isFunctionContext: Bool = false
    /// Whether the word is a box the compiler made to hold a value out of line (an indirect
    /// enum case's payload, an existential's value too large for its buffer): its target is
    /// named as a box of its contents, not as the closure context its metadata looks like.
    package var isBox: Bool = false
    /// Whether the word is a `String`'s object word: its target is
    /// ``StringObject/storage(_:)`` of it, not the word itself.
    package var isStringObject: Bool = false

    package init(
        offset: Int, ownership: Ownership, role: ReferenceRole, isFunctionContext: Bool = false,
        isBox: Bool = false, isStringObject: Bool = false
    ) {
        self.offset = offset
        self.ownership = ownership
        self.role = role
        self.isFunctionContext = isFunctionContext
        self.isBox = isBox
        self.isStringObject = isStringObject
    }
}

/// A value whose references depend on its run-time contents: a multi-case enum or an opaque
/// existential (`Any`, `any P`). Its bytes are copied and decoded (``DynamicValues``).
package struct DynamicSlot: Sendable {
    package enum Shape: Sendable {
        /// An enum (or an optional of a non-reference type) of the given type.
        case enumValue
        /// An opaque existential container (three words of buffer, then the type).
        case existential
    }
    package var offset: Int
    package var size: Int
    package var shape: Shape
    /// The value's type (for an existential, the container's), as the metadata source that
    /// compiled the layout knows it.
    package var type: TypeHandle
    /// Whose value this is, and its path.
    package var base: RoleBase
    package var path: String

    package init(
        offset: Int, size: Int, shape: Shape, type: TypeHandle, base: RoleBase, path: String
    ) {
        self.offset = offset
        self.size = size
        self.shape = shape
        self.type = type
        self.base = base
        self.path = path
    }
}

/// The references of a value of one type, relative to the value's start.
package struct ValueLayout: Sendable {
    package var slots: [LayoutSlot] = []
    package var dynamics: [DynamicSlot] = []
    /// The values and children the compiler visited to make it (bounded: see
    /// ``LayoutCompiler/maximumSlots``).
    package var visits = 0
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
    package var element: ValueLayout
}

/// What can be read of heap objects of one metadata.
package struct ObjectLayout: Sendable {
    /// Why some of an object's references cannot be read, for diagnostics.
    package enum ProblemKind: Sendable {
        /// The type has no reflection metadata.
        case missingMetadata
        /// A closure context's captures could not all be decoded.
        case undecodableClosure
        /// Metadata of a kind or shape the compiler does not know.
        case unrecognisedMetadata
    }

    /// What kind of heap object this is.
    package var kind: HeapObjectKind
    /// The type name a report shows (`MyApp.Owner`, `closure context (captures Owner)`,
    /// `[Entry] storage`).
    package var typeName: String
    /// For a closure context or box, the short names of what it captures, in order.
    package var captures: [String] = []
    /// The references at fixed offsets from the object's start.
    package var fields = ValueLayout()
    /// Tail-allocated elements (array, dictionary keys and values, set members).
    package var regions: [ElementRegion] = []
    /// Why some of the object's references cannot be read, if that is so.
    package var problem: String?
    package var problemKind: ProblemKind = .unrecognisedMetadata
    /// Where the rest of the object is read conservatively (every word that is a live
    /// object's address counts, as a ``/ObjectGraph/Ownership/conservative`` reference), when
    /// the layout could not say: the captures of a closure context after the first one that
    /// could not be decoded.
    package var conservativeFrom: Int?
    /// Where conservative reading stops (the object's end when larger): a task's first async
    /// frame, say.
    package var conservativeLimit = Int.max
    /// The role of the references read conservatively from ``conservativeFrom``: by default
    /// a capture named after what the word turns out to point at (``targetNamedCapture``).
    package var conservativeRole: ReferenceRole = ObjectLayout.targetNamedCapture
    /// Whether the layout of a closure context depends on the instance (generic bindings the
    /// compiler reads from the object): ``LayoutCompiler/instanceLayout(of:)`` gives it.
    package var dependsOnInstance = false

    /// Whether this is the closure a `Task.sleep`'s wake-up task runs
    /// (``RuntimeTasks/isSleepWakeUpClosure(captureTypeNames:)``): the readers name the task
    /// that runs it after it.
    package var isSleepWakeUp = false

    /// Whether the type is `Foundation.Timer` or a subclass (its holder is named).
    package var isTimer = false
    /// Whether the type is `Foundation.Thread` or a subclass (a running one is named).
    package var isThread = false
    /// Where a `Foundation.Timer` keeps its CoreFoundation timer, and a `Foundation.Thread` its
    /// pthread.
    package var handleOffset: Int?
    /// The instance size, when no object of the type can be larger: a class of a user's module
    /// with stored properties, none of whose classes is `ManagedBuffer`. Nil when objects of
    /// the type may carry tail-allocated bytes (the toolchain's classes: collection and string
    /// storage, key paths, CoreFoundation objects; `ManagedBuffer` subclasses; a class with no
    /// stored properties, which `ManagedBufferPointer` may allocate with tail bytes) or the
    /// class is not known. A reader of another process's heap refuses a block far larger than
    /// this: its first word is a stale or copied metadata word, not an object's.
    package var fixedInstanceSize: Int?

    package init(kind: HeapObjectKind, typeName: String) {
        self.kind = kind
        self.typeName = typeName
    }

    /// The role of a capture whose type the layout does not know (a C block's captures, a
    /// closure context's undecodable ones, read conservatively): the readers name it after
    /// the type of the object the word points at, once they know it.
    package static let targetNamedCapture = ReferenceRole.capture(name: "")

    /// Whether this is a reabstraction thunk's context: a closure context whose only capture
    /// is another closure (the compiler makes one when a closure is stored generically, in an
    /// array or an `Any`). Readers look through it to the closure it wraps.
    package var isThunk: Bool {
        kind == .closureContext && captures == ["closure"] && fields.slots.count == 1
            && fields.slots[0].isFunctionContext && hasOnlyFixedSlots
    }

    /// Whether the object holds nothing beyond its fixed slots.
    package var hasOnlyFixedSlots: Bool {
        fields.dynamics.isEmpty && regions.isEmpty && conservativeFrom == nil
    }
}
