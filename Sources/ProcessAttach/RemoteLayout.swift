import ObjectGraph
import RuntimeLayouts

// Layouts of the target's heap objects, compiled once per metadata by RemoteLayoutCompiler and
// executed by HeapObjectScan. Roles are the project's one vocabulary (`ReferenceRole`), made
// the way the in-process layout compiler makes them (`RoleBase` and a property path), so that
// a path reads the same whether the census or an attach found it.

/// A word of an object that may hold a reference, at a fixed offset.
struct RemoteSlot: Sendable {
    var offset: Int
    var ownership: Ownership
    /// The role's number in the compiler's role table.
    var role: UInt32
    /// Whether the word is a thick function's context: when it is an instance rather than a
    /// closure context, the closure's only capture is that instance, and the role names it
    /// (`ReferenceRole.capturing(_:)`).
    var isFunctionContext = false
    /// Whether the word is a box the compiler made for a value held out of line (an
    /// existential's value too large for its buffer): its target is named as a box.
    var isBox = false
}

/// A value whose references depend on its contents (a multi-payload enum, an opaque
/// existential): decoded per object through the remote mirror.
struct DynamicSlot: Sendable {
    enum Shape: Sendable { case enumValue, existential }
    var offset: Int
    var shape: Shape
    /// The value's type in the remote mirror.
    var typeRef: UInt64
    /// Whose value this is (a property, a capture, an element…), and its path inside.
    var base: RoleBase
    var path: String
}

/// The references of a value of one type, relative to the value's start, each with its path
/// inside the value (`state.timer`); the holder's ``RoleBase`` completes the role.
struct ValueSlots: Sendable {
    struct Slot: Sendable {
        var offset: Int
        var ownership: Ownership
        var path: String
        var isFunctionContext = false
    }
    var slots: [Slot] = []
    var dynamics: [DynamicSlot] = []
    var isEmpty: Bool { slots.isEmpty && dynamics.isEmpty }

    /// These slots moved to `offset`, their paths under `prefix`.
    func placed(at offset: Int, under prefix: String) -> ValueSlots {
        var moved = ValueSlots()
        moved.slots = slots.map {
            var slot = $0
            slot.offset += offset
            slot.path = Self.joined(prefix, $0.path)
            return slot
        }
        moved.dynamics = dynamics.map {
            var slot = $0
            slot.offset += offset
            slot.path = Self.joined(prefix, $0.path)
            return slot
        }
        return moved
    }

    mutating func append(_ other: ValueSlots) {
        slots += other.slots
        dynamics += other.dynamics
    }

    /// `head.tail`, or whichever is not empty.
    static func joined(_ head: String, _ tail: String, separator: String = ".") -> String {
        head.isEmpty ? tail : tail.isEmpty ? head : head + separator + tail
    }
}

/// The tail-allocated elements of a standard collection's storage.
struct ElementRegion: Sendable {
    enum Counting: Sendable {
        /// Array storage: the count at `countOffset`, the elements from `start`.
        case prefix(countOffset: Int, start: Int)
        /// Hashed storage: the occupied buckets' bits at `bitmapOffset`, `1 << scale` buckets
        /// (an `Int8` at `scaleOffset`), the elements at the address stored at `baseOffset`.
        case hashed(scaleOffset: Int, bitmapOffset: Int, baseOffset: Int)
    }
    var counting: Counting
    var stride: Int
    var element: [RemoteSlot]
    var dynamics: [DynamicSlot]
}

/// Where a heap object of one metadata holds references: compiled once per metadata.
struct RemoteLayout: Sendable {
    /// What kind of heap object it is.
    enum Shape: UInt8, Sendable {
        case instance, closureContext, box, storage, task, block, other
    }
    var typeName: String
    var shape: Shape
    var slots: [RemoteSlot] = []
    var dynamics: [DynamicSlot] = []
    var regions: [ElementRegion] = []
    /// For a closure context, the short names of what it captures, in order.
    var captures: [String] = []
    /// From this offset to the end of the block, every word that is an object's address is a
    /// reference, read conservatively (with `conservativeRole`): memory no layout describes.
    var conservativeFrom: Int?
    var conservativeLimit = Int.max
    /// The role of the words read conservatively (a number in the compiler's role table); the
    /// census's ``ObjectLayout/targetNamedCapture`` is named after the target once known.
    var conservativeRole: UInt32 = 0
    /// Why some references cannot be read, if so.
    var problem: String?
    /// Whether the type is `Foundation.Timer` or a subclass.
    var isTimer = false
    /// Where a timer keeps its CoreFoundation timer (`_timerStorage`).
    var timerStorageOffset: Int?

    init(typeName: String, shape: Shape) {
        self.typeName = typeName
        self.shape = shape
    }

    /// The graph's kind for objects of this layout.
    var nodeKind: CompactGraph.NodeKind {
        if isTimer { return .timer }
        switch shape {
        case .closureContext, .block: return .closure
        case .box: return .box
        case .storage: return .storage
        case .instance, .task, .other: return .object
        }
    }

    /// The name of a box the compiler made for a value held out of line, whose metadata is a
    /// context capturing that value (as the census names it: `box of Payload`).
    var boxName: String {
        captures.isEmpty ? "box" : "box of \(captures.joined(separator: ", "))"
    }
}
