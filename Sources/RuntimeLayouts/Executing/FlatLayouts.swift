/// Every compiled layout flattened into tables of plain values, for the scan's per-object path:
/// an object is read from these tables without copying its layout (a struct of arrays: a retain
/// and a release per object) and without a generic call (`Array` subscripts and iterators are
/// unspecialised calls in a debug build). Part of the same hand-managed memory as
/// ``ScanColumns``.
package final class FlatLayouts {
    /// What the scan needs of one layout.
    struct Layout {
        /// The layout's fixed slots: `slots[slotStart..<slotEnd]`.
        var slotStart: Int32
        var slotEnd: Int32
        /// Its dynamic values: `dynamics[dynamicStart..<dynamicEnd]`.
        var dynamicStart: Int32
        var dynamicEnd: Int32
        /// The bytes their copies take, alignment included.
        var dynamicBytes: Int32
        /// Its element regions: `regions[regionStart..<regionEnd]`.
        var regionStart: Int32
        var regionEnd: Int32
        /// Where the object is read conservatively from (-1: nowhere) and to, and with which
        /// role.
        var conservativeFrom: Int32
        var conservativeLimit: Int32
        var conservativeRole: UInt32
        /// Whether there is anything beyond the fixed slots.
        var hasMore: Bool
        /// What kind of heap object the layout is for.
        var kind: HeapObjectKind
    }

    /// One region of tail-allocated elements.
    struct Region {
        var isHashed: Bool
        /// Array storage: where the count is and where elements start. Hashed storage: where
        /// the scale (an `Int8`) is and where the bitmap starts.
        var countOffset: Int32
        var start: Int32
        /// Hashed storage: where the address of the elements is.
        var baseOffset: Int32
        var stride: Int32
        /// Each element's slots and dynamic values, as for a layout.
        var slotStart: Int32
        var slotEnd: Int32
        var dynamicStart: Int32
        var dynamicEnd: Int32
        var dynamicBytes: Int32
    }

    /// One dynamic value inside an object or element: where it is, its size, and how many of
    /// its first words can hold a reference (an existential's three words of buffer; every
    /// whole word of an enum).
    struct Dynamic {
        var offset: Int32
        var size: Int32
        var referenceWords: Int32
    }

    package let layoutCount: Int
    let layouts: UnsafeMutablePointer<Layout>
    let regions: UnsafeMutablePointer<Region>
    let slots: UnsafeMutablePointer<CompiledLayout.Slot>
    let dynamics: UnsafeMutablePointer<Dynamic>
    /// Every dynamic value's slot, by the index the tables use (read once the locks are
    /// released, to decode the copies).
    package let dynamicSlots: [DynamicSlot]

    package init(layouts compiled: [CompiledLayout]) {
        var slotList: [CompiledLayout.Slot] = []
        var dynamicList: [DynamicSlot] = []
        var regionList: [Region] = []
        var layoutList: [Layout] = []
        layoutList.reserveCapacity(compiled.count)
        /// Appends `values`' dynamics; returns their range and the bytes their copies take.
        func addDynamics(_ values: [DynamicSlot]) -> (Int32, Int32, Int32) {
            let start = Int32(dynamicList.count)
            var bytes = 0
            for value in values {
                dynamicList.append(value)
                bytes &+= (value.size + 15) & ~15
            }
            return (start, Int32(dynamicList.count), Int32(clamping: bytes))
        }
        for layout in compiled {
            let slotStart = Int32(slotList.count)
            slotList += layout.slots
            let (dynamicStart, dynamicEnd, dynamicBytes) = addDynamics(layout.dynamics)
            let regionStart = Int32(regionList.count)
            for region in layout.regions {
                let elementStart = Int32(slotList.count)
                slotList += region.slots
                let (start, end, bytes) = addDynamics(region.dynamics)
                var flat = Region(
                    isHashed: false, countOffset: 0, start: 0, baseOffset: 0,
                    stride: Int32(clamping: region.stride), slotStart: elementStart,
                    slotEnd: Int32(slotList.count), dynamicStart: start, dynamicEnd: end,
                    dynamicBytes: bytes)
                switch region.counting {
                case .prefix(let countOffset, let first):
                    flat.countOffset = Int32(clamping: countOffset)
                    flat.start = Int32(clamping: first)
                case .hashed(let scaleOffset, let bitmapOffset, let baseOffset):
                    flat.isHashed = true
                    flat.countOffset = Int32(clamping: scaleOffset)
                    flat.start = Int32(clamping: bitmapOffset)
                    flat.baseOffset = Int32(clamping: baseOffset)
                }
                regionList.append(flat)
            }
            layoutList.append(
                Layout(
                    slotStart: slotStart, slotEnd: Int32(layout.slots.count) + slotStart,
                    dynamicStart: dynamicStart, dynamicEnd: dynamicEnd, dynamicBytes: dynamicBytes,
                    regionStart: regionStart, regionEnd: Int32(regionList.count),
                    conservativeFrom: layout.conservativeFrom.map { Int32(clamping: $0) } ?? -1,
                    conservativeLimit: Int32(clamping: layout.conservativeLimit),
                    conservativeRole: layout.conservativeRole, hasMore: !layout.hasOnlyFixedSlots,
                    kind: layout.kind))
        }
        layoutCount = layoutList.count
        layouts = Self.copy(layoutList)
        regions = Self.copy(regionList)
        slots = Self.copy(slotList)
        dynamics = Self.copy(
            dynamicList.map {
                Dynamic(
                    offset: Int32(clamping: $0.offset), size: Int32(clamping: $0.size),
                    referenceWords: $0.shape == .existential ? 3 : Int32(clamping: $0.size / 8))
            })
        dynamicSlots = dynamicList
    }

    /// How many of the first words of dynamic value `index`'s copy can hold a reference.
    package func referenceWords(ofDynamic index: Int) -> Int { Int(dynamics[index].referenceWords) }

    deinit {
        layouts.deallocate()
        regions.deallocate()
        slots.deallocate()
        dynamics.deallocate()
    }

    /// A buffer holding `values` (at least one element's room, so it is never empty).
    private static func copy<Value>(_ values: [Value])
        -> UnsafeMutablePointer<Value>
    {
        let buffer = UnsafeMutablePointer<Value>.allocate(capacity: max(values.count, 1))
        values.withUnsafeBufferPointer { values in
            if let base = values.baseAddress { buffer.initialize(from: base, count: values.count) }
        }
        return buffer
    }
}
