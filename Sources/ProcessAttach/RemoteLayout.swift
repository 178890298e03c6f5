/// How a slot holds the object whose address it stores.
enum SlotOwnership: UInt8, Sendable {
    /// The word is the object's address and keeps it alive.
    case strong
    /// A native `weak` reference: the word is a side table's address, whose first word is the
    /// object's address (null once the object died).
    case weak
    /// An `unowned` reference: the word is the object's address.
    case unowned
    /// An `unowned(unsafe)` reference: the word is an address that may be stale.
    case unownedUnsafe
    /// A word of memory no layout describes (a task's frame, a block's captures, a field the
    /// mirror cannot lower) that holds an object's address: counted as strong.
    case conservative
}

/// A word of an object that may hold a reference, at a fixed offset.
struct LayoutSlot: Sendable {
    var offset: Int
    var ownership: SlotOwnership
    /// The label's number in the ``LabelTable``.
    var label: Int32
}

/// A value whose references depend on its contents (a multi-payload enum, an opaque
/// existential): decoded per object through the remote mirror.
struct DynamicSlot: Sendable {
    enum Shape: Sendable { case enumValue, existential }
    var offset: Int
    var shape: Shape
    /// The value's type in the remote mirror.
    var typeRef: UInt64
    var label: String
}

/// The references of a value of one type, relative to the value's start.
struct ValueSlots: Sendable {
    var slots: [(offset: Int, ownership: SlotOwnership, label: String)] = []
    var dynamics: [DynamicSlot] = []
    var isEmpty: Bool { slots.isEmpty && dynamics.isEmpty }

    /// These slots moved to `offset`, their labels under `prefix`.
    func placed(at offset: Int, under prefix: String) -> ValueSlots {
        func join(_ label: String) -> String {
            if prefix.isEmpty { return label }
            if label.isEmpty { return prefix }
            return label.hasPrefix("(") ? "\(prefix) \(label)" : "\(prefix).\(label)"
        }
        var moved = ValueSlots()
        moved.slots = slots.map { ($0.offset + offset, $0.ownership, join($0.label)) }
        moved.dynamics = dynamics.map {
            var slot = $0
            slot.offset += offset
            slot.label = join($0.label)
            return slot
        }
        return moved
    }

    mutating func append(_ other: ValueSlots) {
        slots += other.slots
        dynamics += other.dynamics
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
    var element: [LayoutSlot]
    var dynamics: [DynamicSlot]
}

/// Where a heap object of one metadata holds references: compiled once per metadata.
struct RemoteLayout: Sendable {
    /// What kind of heap object it is, as the graph shows it.
    enum Shape: UInt8, Sendable {
        case instance, closureContext, box, storage, task, block, other
    }
    var typeName: String
    var shape: Shape
    var slots: [LayoutSlot] = []
    var dynamics: [DynamicSlot] = []
    var regions: [ElementRegion] = []
    /// From this offset to the end of the block, every word that is an object's address is a
    /// reference (labelled `conservativeLabel`): memory no layout describes.
    var conservativeFrom: Int?
    var conservativeLimit = Int.max
    var conservativeLabel: Int32 = 0
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
}

/// Labels interned as numbers, for slots and references.
struct LabelTable: Sendable {
    private(set) var labels: [String] = [""]
    private var numbers: [String: Int32] = ["": 0]

    /// The number of `label`, adding it if new.
    mutating func number(_ label: String) -> Int32 {
        if let number = numbers[label] { return number }
        let number = Int32(labels.count)
        labels.append(label)
        numbers[label] = number
        return number
    }

    subscript(number: Int32) -> String {
        Int(number) < labels.count && number >= 0 ? labels[Int(number)] : ""
    }
}
