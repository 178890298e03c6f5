/// Growable columns a heap scan appends to: one per field of an object, of a reference, of a
/// dynamic value's copy and of an object whose type is new. The census's scan and a stopped
/// process's scan fill them alike (``ObjectReader``); the graph builder reads them.
///
/// The one place in this module that manages memory by hand and skips exclusivity checks, for
/// what it buys: a scan of a million objects appends about five million values. Appended to
/// `Array`s held in the scan, every append paid a uniqueness check, and each object's layout
/// copy a retain and a release; held in a class's stored `var`s, every access paid a dynamic
/// exclusivity check (`swift_beginAccess`): 39 % of `HeapCensus.snapshot()`'s instructions
/// (callgrind, `CensusScale`, 1M objects). Here the columns and counts live in one struct
/// behind a pointer this object allocates, and an append is a store.
///
/// Appends never allocate: the census's scan appends while it holds a stripe lock (other
/// threads' `free` of that stripe's blocks waits), so it asks ``Storage/hasRoom(_:)`` for an object's
/// worst case before reading it, and when the answer is no it stops, releases the lock, calls
/// ``makeRoom(_:)`` and visits the stripe again. Nothing here is generic on the per-object
/// path: a debug build does not specialise generic code, and an `Array` append of the standard
/// library run unspecialised cost 44 % of a debug build's snapshot (perf, ExitCheckScale).
/// The scan is single-threaded and no column escapes: arrays are copied out at the end.
package final class ScanColumns {
    /// A growable column of plain values.
    package struct Column<Value: BitwiseCopyable> {
        package private(set) var base: UnsafeMutablePointer<Value>
        package private(set) var capacity: Int

        init(capacity: Int) {
            self.capacity = max(capacity, 16)
            base = .allocate(capacity: self.capacity)
        }

        /// Makes room for at least `needed` values, keeping the first `count`.
        mutating func grow(to needed: Int, keeping count: Int) {
            guard needed > capacity else { return }
            var newCapacity = capacity
            while newCapacity < needed { newCapacity *= 2 }
            let newBase = UnsafeMutablePointer<Value>.allocate(capacity: newCapacity)
            newBase.initialize(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }

        func free() { base.deallocate() }

        /// Frees the values and leaves an empty column (of the smallest capacity) in place.
        mutating func release() {
            base.deallocate()
            self = Column(capacity: 0)
        }

        /// The first `count` values, as an array.
        package func array(_ count: Int) -> [Value] {
            Array(UnsafeBufferPointer(start: base, count: count))
        }
    }

    /// What reading one object may append at most, or what a column lacks.
    package struct Room {
        package var objects = 0
        package var references = 0
        /// Bytes of dynamic values' copies, alignment included.
        package var bytes = 0
        package var dynamics = 0
        package var unknown = 0

        package init(
            objects: Int = 0, references: Int = 0, bytes: Int = 0, dynamics: Int = 0,
            unknown: Int = 0
        ) {
            self.objects = objects
            self.references = references
            self.bytes = bytes
            self.dynamics = dynamics
            self.unknown = unknown
        }
    }

    /// Every column, with the numbers of values appended.
    package struct Storage {
        // Objects.
        package var objectCount = 0
        package var addresses: Column<UInt>
        package var layoutIndex: Column<Int32>
        package var retainCounts: Column<UInt32>
        package var sizes: Column<UInt32>
        package var entryKinds: Column<UInt8>
        // References: holder, word read, ownership (bits 0–2, its byte) and whether the word is
        // a function's context (bit 3), role (its number in the layout registry).
        package var referenceCount = 0
        package var sources: Column<UInt32>
        package var words: Column<UInt>
        package var kinds: Column<UInt8>
        package var roles: Column<UInt32>
        // Dynamic values: their copies (each at a 16-byte boundary), and per value its holder,
        // where its copy starts, and its slot (an index of FlatLayouts.dynamicSlots).
        package var byteCount = 0
        package var bytes: Column<UInt8>
        package var dynamicCount = 0
        package var dynamicSources: Column<UInt32>
        package var dynamicOffsets: Column<Int>
        package var dynamicSlots: Column<UInt32>
        /// Where each dynamic value was (a remote mirror decodes it there).
        package var dynamicAddresses: Column<UInt>
        // Objects whose type's layout was not compiled when they were met: address, metadata
        // word, stripe.
        package var unknownCount = 0
        package var unknownAddresses: Column<UInt>
        package var unknownTypes: Column<UInt>
        package var unknownStripes: Column<Int32>

        /// Whether every column has room for `needed` more values. (Mutating only to be called
        /// in place: a debug build would copy the whole struct for a non-mutating call.)
        package mutating func hasRoom(_ needed: Room) -> Bool {
            objectCount + needed.objects <= addresses.capacity
                && referenceCount + needed.references <= sources.capacity
                && byteCount + needed.bytes <= bytes.capacity
                && dynamicCount + needed.dynamics <= dynamicSources.capacity
                && unknownCount + needed.unknown <= unknownAddresses.capacity
        }

        /// Appends an object; returns its number. The caller checked the room.
        package mutating func appendObject(
            address: UInt, layout: Int32, retainCount: UInt32, size: UInt32, kind: HeapObjectKind
        ) -> UInt32 {
            let index = objectCount
            addresses.base[index] = address
            layoutIndex.base[index] = layout
            retainCounts.base[index] = retainCount
            sizes.base[index] = size
            entryKinds.base[index] = kind.rawValue
            objectCount = index + 1
            return UInt32(truncatingIfNeeded: index)
        }

        /// Appends a reference from object `source` to whatever `word` is (`kind`: the
        /// ownership's byte, with ``functionContextBit`` set for a function's context word).
        /// The caller checked the room.
        package mutating func appendReference(
            from source: UInt32, word: UInt, kind: UInt8, role: UInt32
        ) {
            let index = referenceCount
            sources.base[index] = source
            words.base[index] = word
            kinds.base[index] = kind
            roles.base[index] = role
            referenceCount = index + 1
        }

        /// Copies the `size` bytes of a dynamic value at `address`, found here at `local`
        /// (another object's memory, read with uninstrumented loads), and records it for
        /// `source`. The caller checked the room.
        package mutating func appendDynamic(
            from source: UInt32, slot: UInt32, address: UInt, local: UInt, size: Int
        ) {
            let offset = (byteCount + 15) & ~15
            RacyMemory.copy(
                from: local, into: UnsafeMutableRawPointer(bytes.base + offset), count: size)
            byteCount = offset + size
            let index = dynamicCount
            dynamicSources.base[index] = source
            dynamicOffsets.base[index] = offset
            dynamicSlots.base[index] = slot
            dynamicAddresses.base[index] = address
            dynamicCount = index + 1
        }

        /// Sets an object aside whose type's layout is not compiled yet. The caller checked
        /// the room.
        package mutating func appendUnknown(address: UInt, type: UInt, stripe: Int) {
            let index = unknownCount
            unknownAddresses.base[index] = address
            unknownTypes.base[index] = type
            unknownStripes.base[index] = Int32(truncatingIfNeeded: stripe)
            unknownCount = index + 1
        }
    }

    /// The columns; read them only while this object is alive.
    package let storage: UnsafeMutablePointer<Storage>

    /// Columns with room for `objects` objects, `references` references and `bytes` bytes of
    /// dynamic values. Capacity that is never written costs no memory: its pages are never
    /// touched.
    package init(objects: Int, references: Int, bytes: Int) {
        storage = .allocate(capacity: 1)
        storage.initialize(
            to: Storage(
                addresses: Column(capacity: objects), layoutIndex: Column(capacity: objects),
                retainCounts: Column(capacity: objects), sizes: Column(capacity: objects),
                entryKinds: Column(capacity: objects), sources: Column(capacity: references),
                words: Column(capacity: references), kinds: Column(capacity: references),
                roles: Column(capacity: references), bytes: Column(capacity: bytes),
                dynamicSources: Column(capacity: bytes / 32),
                dynamicOffsets: Column(capacity: bytes / 32),
                dynamicSlots: Column(capacity: bytes / 32),
                dynamicAddresses: Column(capacity: bytes / 32),
                unknownAddresses: Column(capacity: 1024),
                unknownTypes: Column(capacity: 1024), unknownStripes: Column(capacity: 1024)))
    }

    deinit {
        let columns = storage.pointee
        columns.addresses.free()
        columns.layoutIndex.free()
        columns.retainCounts.free()
        columns.sizes.free()
        columns.entryKinds.free()
        columns.sources.free()
        columns.words.free()
        columns.kinds.free()
        columns.roles.free()
        columns.bytes.free()
        columns.dynamicSources.free()
        columns.dynamicOffsets.free()
        columns.dynamicSlots.free()
        columns.dynamicAddresses.free()
        columns.unknownAddresses.free()
        columns.unknownTypes.free()
        columns.unknownStripes.free()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// The bit of a reference's kind that marks a function's context word.
    package static let functionContextBit: UInt8 = 8

    package var objectCount: Int { storage.pointee.objectCount }
    package var referenceCount: Int { storage.pointee.referenceCount }
    package var dynamicCount: Int { storage.pointee.dynamicCount }
    package var unknownCount: Int { storage.pointee.unknownCount }

    /// Grows the columns that lack room for `needed` more values (at least doubling them).
    /// Allocates: call it with no census lock held.
    package func makeRoom(_ needed: Room) {
        let objects = storage.pointee.objectCount
        let references = storage.pointee.referenceCount
        let dynamics = storage.pointee.dynamicCount
        let unknown = storage.pointee.unknownCount
        storage.pointee.addresses.grow(to: objects + needed.objects, keeping: objects)
        storage.pointee.layoutIndex.grow(to: objects + needed.objects, keeping: objects)
        storage.pointee.retainCounts.grow(to: objects + needed.objects, keeping: objects)
        storage.pointee.sizes.grow(to: objects + needed.objects, keeping: objects)
        storage.pointee.entryKinds.grow(to: objects + needed.objects, keeping: objects)
        storage.pointee.sources.grow(to: references + needed.references, keeping: references)
        storage.pointee.words.grow(to: references + needed.references, keeping: references)
        storage.pointee.kinds.grow(to: references + needed.references, keeping: references)
        storage.pointee.roles.grow(to: references + needed.references, keeping: references)
        let bytes = storage.pointee.byteCount
        storage.pointee.bytes.grow(to: bytes + needed.bytes, keeping: bytes)
        storage.pointee.dynamicSources.grow(to: dynamics + needed.dynamics, keeping: dynamics)
        storage.pointee.dynamicOffsets.grow(to: dynamics + needed.dynamics, keeping: dynamics)
        storage.pointee.dynamicSlots.grow(to: dynamics + needed.dynamics, keeping: dynamics)
        storage.pointee.dynamicAddresses.grow(to: dynamics + needed.dynamics, keeping: dynamics)
        storage.pointee.unknownAddresses.grow(to: unknown + needed.unknown, keeping: unknown)
        storage.pointee.unknownTypes.grow(to: unknown + needed.unknown, keeping: unknown)
        storage.pointee.unknownStripes.grow(to: unknown + needed.unknown, keeping: unknown)
    }

    /// The objects' columns as arrays, one per column.
    package struct ObjectArrays {
        package var addresses: [UInt]
        package var layoutIndex: [Int32]
        package var retainCounts: [UInt32]
        package var sizes: [UInt32]
        package var kinds: [HeapObjectKind]
    }

    /// Copies the objects' columns out as arrays; with `releasing`, frees each column as soon as
    /// it is copied, leaving the columns empty: the scan then holds no object, and its references
    /// and dynamic values, which name objects by number, stay readable.
    ///
    /// What it buys: an attach's graph builder holds its own copy of each object column (the
    /// graph keeps them), and the scan's, 21 bytes an object, never outlive that copy; freed one
    /// at a time, the copy's peak holds one column twice, not all five.
    package func objectArrays(releasing: Bool) -> ObjectArrays {
        let addresses = addressArray()
        if releasing { storage.pointee.addresses.release() }
        let layoutIndex = layoutIndexArray()
        if releasing { storage.pointee.layoutIndex.release() }
        let retainCounts = retainCountArray()
        if releasing { storage.pointee.retainCounts.release() }
        let sizes = sizeArray()
        if releasing { storage.pointee.sizes.release() }
        let kinds = entryKindArray()
        if releasing {
            storage.pointee.entryKinds.release()
            storage.pointee.objectCount = 0
        }
        return ObjectArrays(
            addresses: addresses, layoutIndex: layoutIndex, retainCounts: retainCounts,
            sizes: sizes, kinds: kinds)
    }

    /// One of the references' columns.
    package enum ReferenceColumn {
        case sources, words, kinds, roles
    }

    /// Frees one of the references' columns, for a reader that resolved them in place and
    /// copies them out one at a time: the scan then holds no reference (the others stay
    /// allocated until freed too), and the reader's peak holds one copy, not all four.
    package func releaseReferenceColumn(_ column: ReferenceColumn) {
        storage.pointee.referenceCount = 0
        switch column {
        case .sources: storage.pointee.sources.release()
        case .words: storage.pointee.words.release()
        case .kinds: storage.pointee.kinds.release()
        case .roles: storage.pointee.roles.release()
        }
    }

    /// Frees the references' columns once a reader has resolved them, leaving them empty (17
    /// bytes a reference; see ``objectArrays(releasing:)``).
    package func releaseReferences() {
        for column in [ReferenceColumn.sources, .words, .kinds, .roles] {
            releaseReferenceColumn(column)
        }
    }

    /// Object `index` as recorded: its address, layout (-1 for one read without a layout), size
    /// and kind.
    package func object(_ index: Int) -> (
        address: UInt, layout: Int32, size: Int, kind: HeapObjectKind
    ) {
        (
            storage.pointee.addresses.base[index], storage.pointee.layoutIndex.base[index],
            Int(storage.pointee.sizes.base[index]),
            HeapObjectKind(rawValue: storage.pointee.entryKinds.base[index]) ?? .instance
        )
    }

    /// The address of object `index`.
    package func address(_ index: Int) -> UInt { storage.pointee.addresses.base[index] }

    /// The objects' columns, as arrays.
    package func addressArray() -> [UInt] { storage.pointee.addresses.array(objectCount) }
    package func layoutIndexArray() -> [Int32] { storage.pointee.layoutIndex.array(objectCount) }
    package func retainCountArray() -> [UInt32] { storage.pointee.retainCounts.array(objectCount) }
    package func sizeArray() -> [UInt32] { storage.pointee.sizes.array(objectCount) }
    package func entryKindArray() -> [HeapObjectKind] {
        let count = objectCount
        let raw = storage.pointee.entryKinds.base
        return [HeapObjectKind](unsafeUninitializedCapacity: count) { kinds, initialized in
            guard let kinds = kinds.baseAddress else { return }
            var index = 0
            while index < count {
                kinds[index] = HeapObjectKind(rawValue: raw[index]) ?? .instance
                index += 1
            }
            initialized = count
        }
    }

    /// Records an object (its room was reserved); returns its number.
    package func record(
        _ address: UInt, layout: Int32, retainCount: Int, kind: HeapObjectKind, size: Int
    ) -> UInt32 {
        storage.pointee.appendObject(
            address: address, layout: layout,
            retainCount: retainCount < Int(UInt32.max)
                ? UInt32(truncatingIfNeeded: retainCount) : UInt32.max,
            size: size < Int(UInt32.max) ? UInt32(truncatingIfNeeded: size) : UInt32.max,
            kind: kind)
    }
}
