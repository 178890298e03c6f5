import ObjectGraph

/// Collection storage's elements and memory read conservatively, written like the rest of the
/// reader for a debug build: plain loads, `while` loops, no generic call.
extension StripeReader {
    /// Where a region's elements are in one object: array storage's `count` elements from
    /// `first`, or hashed storage's buckets (`count` of them: an upper bound of its elements)
    /// whose bits are set in the bitmap.
    struct Extent {
        var first: UInt = 0
        var count = 0
        var bitmap: UInt = 0
        var bitmapWords = 0
    }

    /// The extent of `region` in the object at `object`, of `size` bytes, clamped to the block
    /// and to ``HeapScan/maximumElements``; empty when its counts are implausible.
    static func extent(of region: FlatLayouts.Region, object: UInt, size: Int) -> Extent {
        let blockEnd = object &+ UInt(bitPattern: size)
        let stride = Int(region.stride)
        guard stride > 0 else { return Extent() }
        if !region.isHashed {
            let count = Int(
                bitPattern: CensusDoor.load(object &+ UInt(bitPattern: Int(region.countOffset))))
            let first = object &+ UInt(bitPattern: Int(region.start))
            guard count > 0, first < blockEnd else { return Extent() }
            var fitting = Int(bitPattern: blockEnd &- first) / stride
            if count < fitting { fitting = count }
            if HeapScan.maximumElements < fitting { fitting = HeapScan.maximumElements }
            return Extent(first: first, count: fitting)
        }
        let scaleWord = CensusDoor.load(object &+ UInt(bitPattern: Int(region.countOffset)))
        let scale = Int(Int8(truncatingIfNeeded: scaleWord))
        guard scale >= 0, scale < 40 else { return Extent() }
        let buckets = 1 << scale
        let bitmap = object &+ UInt(bitPattern: Int(region.start))
        let words = (buckets + 63) / 64
        let base = CensusDoor.load(object &+ UInt(bitPattern: Int(region.baseOffset)))
        guard bitmap &+ UInt(bitPattern: 8 * words) <= blockEnd, base >= object,
            base &+ UInt(bitPattern: buckets * stride) <= blockEnd
        else { return Extent() }
        return Extent(first: base, count: buckets, bitmap: bitmap, bitmapWords: words)
    }

    /// Reads the elements of `region` in the object at `object` (its room was reserved).
    func readRegion(_ region: FlatLayouts.Region, object: UInt, size: Int, source: UInt32) {
        let extent = Self.extent(of: region, object: object, size: size)
        guard extent.count > 0 else { return }
        let stride = UInt(bitPattern: Int(region.stride))
        if !region.isHashed {
            var element = 0
            var address = extent.first
            while element < extent.count {
                readElement(region, at: address, source: source)
                address &+= stride
                element += 1
            }
            return
        }
        var wordIndex = 0
        while wordIndex < extent.bitmapWords {
            var bits = CensusDoor.load(extent.bitmap &+ UInt(bitPattern: 8 * wordIndex))
            while bits != 0 {
                let bucket = wordIndex * 64 + bits.trailingZeroBitCount
                bits &= bits &- 1
                guard bucket < extent.count else { break }
                readElement(
                    region, at: extent.first &+ UInt(bitPattern: bucket) &* stride, source: source)
            }
            wordIndex += 1
        }
    }

    /// Reads one element's slots and dynamic values.
    private func readElement(_ region: FlatLayouts.Region, at address: UInt, source: UInt32) {
        readSlots(from: region.slotStart, to: region.slotEnd, base: address, source: source)
        if region.dynamicStart < region.dynamicEnd {
            readDynamics(
                from: region.dynamicStart, to: region.dynamicEnd, base: address, source: source)
        }
    }

    /// Records an object (its room was reserved); returns its number.
    func record(
        _ address: UInt, layout: Int32, retainCount: Int, kind: HeapEntryKind, size: Int
    ) -> UInt32 {
        columns.pointee.appendObject(
            address: address, layout: layout,
            retainCount: retainCount < Int(UInt32.max)
                ? UInt32(truncatingIfNeeded: retainCount) : UInt32.max,
            size: size < Int(UInt32.max) ? UInt32(truncatingIfNeeded: size) : UInt32.max,
            kind: kind)
    }

    /// Memory without a metadata layout (a task, a C block, the undecodable captures of a
    /// closure context): its words that are the addresses of census objects count as strong
    /// references. Only words that are exactly an object's address are kept, later. Its room
    /// was reserved (``words(from:to:)``).
    func readConservatively(
        _ address: UInt, from start: Int, to end: Int, source: UInt32, role: UInt32
    ) {
        var offset = (start + 7) & ~7
        let kind = Ownership.conservative.byte
        while offset + 8 <= end {
            let word = CensusDoor.load(address &+ UInt(bitPattern: offset))
            if word & 15 == 0, word >= 4096, word != address {
                columns.pointee.appendReference(
                    from: source, word: word, kind: kind, role: role)
            }
            offset += 8
        }
    }
}
