import ObjectGraph

/// Collection storage's elements, memory read conservatively and C blocks, written like the rest
/// of the reader for a debug build: plain loads, `while` loops, no generic call.
extension ObjectReader {
    /// The most elements read from one collection storage (a guard against a corrupted count).
    package static var maximumElements: Int { 1 << 24 }

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
    /// and to ``maximumElements``; empty when its counts are implausible.
    func extent(of region: FlatLayouts.Region, object: UInt, size: Int) -> Extent {
        let blockEnd = object &+ UInt(bitPattern: size)
        let stride = Int(region.stride)
        guard stride > 0 else { return Extent() }
        if !region.isHashed {
            let count = Int(
                bitPattern: load(object &+ UInt(bitPattern: Int(region.countOffset))))
            let first = object &+ UInt(bitPattern: Int(region.start))
            guard count > 0, first < blockEnd else { return Extent() }
            var fitting = Int(bitPattern: blockEnd &- first) / stride
            if count < fitting { fitting = count }
            if Self.maximumElements < fitting { fitting = Self.maximumElements }
            return Extent(first: first, count: fitting)
        }
        let scaleWord = load(object &+ UInt(bitPattern: Int(region.countOffset)))
        let scale = Int(Int8(truncatingIfNeeded: scaleWord))
        guard scale >= 0, scale < 40 else { return Extent() }
        let buckets = 1 << scale
        let bitmap = object &+ UInt(bitPattern: Int(region.start))
        let words = (buckets + 63) / 64
        let base = load(object &+ UInt(bitPattern: Int(region.baseOffset)))
        // Compared without overflow: the scale, the stride and the base are the target's words
        // when the heap is another process's.
        let (bytes, overflow) = buckets.multipliedReportingOverflow(by: stride)
        guard bitmap <= blockEnd, UInt(bitPattern: 8 * words) <= blockEnd &- bitmap,
            base >= object, base <= blockEnd, !overflow,
            UInt(bitPattern: bytes) <= blockEnd &- base
        else { return Extent() }
        return Extent(first: base, count: buckets, bitmap: bitmap, bitmapWords: words)
    }

    /// Reads the elements of `region` in the object at `object` (its room was reserved).
    func readRegion(_ region: FlatLayouts.Region, object: UInt, size: Int, source: UInt32) {
        let extent = extent(of: region, object: object, size: size)
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
            var bits = load(extent.bitmap &+ UInt(bitPattern: 8 * wordIndex))
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
            let word = load(address &+ UInt(bitPattern: offset))
            if word & 15 == 0, word >= 4096, word != address {
                columns.pointee.appendReference(
                    from: source, word: word, kind: kind, role: role)
            }
            offset += 8
        }
    }

    /// The end of a C block's captured variables (its descriptor's size, clamped to the block's
    /// `size`), and whether it is a Swift closure made into a block.
    func blockCaptures(_ object: UInt, size: Int) -> (end: Int, isSwiftClosure: Bool) {
        let flags = UInt32(truncatingIfNeeded: load(object &+ 8))
        guard let declared = loadOutside(load(object &+ 24) &+ 8) else { return (32, false) }
        let end = declared < UInt(size) ? Int(declared) : size
        return (end, end == 48 && flags & (1 << 25) != 0)
    }

    /// What reading the C block at `object`, of `size` bytes, may append at most.
    package func neededForBlock(_ object: UInt, size: Int) -> ScanColumns.Room {
        ScanColumns.Room(
            objects: 1, references: Self.words(from: 32, to: blockCaptures(object, size: size).end))
    }

    /// Reads a C block's captured variables: a Swift closure's context as a typed strong
    /// reference (its role names the closure), anything else conservatively.
    package func readBlock(_ object: UInt, size: Int, source: UInt32) {
        let captures = blockCaptures(object, size: size)
        if captures.isSwiftClosure {
            let context = load(object &+ 40)
            guard context != 0 else { return }
            columns.pointee.appendReference(
                from: source, word: context,
                kind: Ownership.strong.byte | ScanColumns.functionContextBit, role: closureRole)
            return
        }
        readConservatively(object, from: 32, to: captures.end, source: source, role: blockRole)
    }

    /// The references a heap block's reference count says it has (1 for one reference, +2 for
    /// each more in compiler-rt's blocks runtime).
    package func blockReferenceCount(_ object: UInt) -> UInt32 {
        let flags = UInt32(truncatingIfNeeded: load(object &+ 8))
        return ((flags & 0xFFFF) + 1) / 2
    }
}
