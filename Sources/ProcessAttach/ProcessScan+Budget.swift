import HeapGraph
import ObjectGraph
import RuntimeLayouts

/// What keeps a scan of another process's heap inside its budget: the memory its columns are
/// charged before they grow, the least size of a block each layout may read, and the sentences
/// that say what was left out.
extension ProcessScan {
    /// What the skipped blocks say, as sentences for the snapshot's limitations.
    var limitations: [String] {
        let chains =
            unendingChainBlocks == 0
            ? []
            : [
                "\(unendingChainBlocks) block\(unendingChainBlocks == 1 ? "" : "s") whose "
                    + "metadata's superclass chain loops or runs on (planted or corrupted "
                    + "metadata): left out"
            ]
        let refused =
            refusedMetadataBlocks == 0
            ? []
            : [
                "skipped: \(refusedMetadataBlocks) object\(refusedMetadataBlocks == 1 ? "" : "s") "
                    + "whose metadata failed the check (unreadable metadata: a generic argument "
                    + "or boxed type that is no type the images describe, planted or corrupted)"
            ]
        return chains + refused
            + undersizedBlocks.sorted { $0.key < $1.key }.map { name, count in
                "\(count) block\(count == 1 ? "" : "s") whose first word names \(name) but "
                    + "too small for its layout (a stale or planted metadata word): left out"
            }
            + oversizedBlocks.sorted { $0.key < $1.key }.map { name, count in
                "\(count) block\(count == 1 ? "" : "s") whose first word names \(name) but "
                    + "far larger than its instances (a stale or copied metadata word): left out"
            }
    }

    /// What malloc may add to a request: glibc rounds a chunk up to 16 bytes and hands out a
    /// free chunk whole when what is left would be smaller than its least chunk (32 bytes), so
    /// a block is at most 47 bytes larger than asked for; 64 leaves room for an aligned
    /// allocation's remainder too.
    static let mallocSlack = 64

    /// The largest block an object of `layout` can be: its fixed instance size and malloc's
    /// slack, or `Int.max` when its objects may carry tail-allocated bytes
    /// (``/RuntimeLayouts/ObjectLayout/fixedInstanceSize``).
    static func maximumSize(_ layout: CompiledLayout) -> Int {
        guard layout.kind == .instance, let size = layout.fixedInstanceSize, size >= 0,
            size <= Int(UInt32.max)
        else { return Int.max }
        return size + mallocSlack
    }

    /// Why `metadata`, refused by the metadata source's check, was refused: -2 a superclass
    /// chain that loops or runs on, -3 a type it leads the mirror to that failed the check, -1
    /// not metadata at all.
    static func refusal(of metadata: UInt, by source: MirrorMetadata) -> Int32 {
        if source.unendingChains.contains(metadata) { return -2 }
        return source.refusedMetadata.contains(metadata) ? -3 : -1
    }

    /// Charges the budget for the columns' growth to hold `needed` more values (they at least
    /// double); false when the budget refuses.
    func charge(_ needed: ScanColumns.Room, columns: ScanColumns) -> Bool {
        let storage = columns.storage.pointee
        var bytes = 0
        if storage.objectCount + needed.objects > storage.addresses.capacity {
            bytes += max(storage.addresses.capacity, needed.objects) * Self.bytesPerObject
        }
        if storage.referenceCount + needed.references > storage.sources.capacity {
            bytes += max(storage.sources.capacity, needed.references) * Self.bytesPerReference
        }
        if storage.byteCount + needed.bytes > storage.bytes.capacity {
            bytes += max(storage.bytes.capacity, needed.bytes)
        }
        if storage.dynamicCount + needed.dynamics > storage.dynamicSources.capacity {
            bytes += max(storage.dynamicSources.capacity, needed.dynamics) * Self.bytesPerDynamic
        }
        return budget.charge(bytes, for: "reading the objects' references")
    }

    /// The least size of a block the reader may read with `layout`: past every fixed slot,
    /// dynamic value and element count it loads (the reader loads them unchecked, from the
    /// block's copy); `Int.max` when the layout can never be read safely (a negative offset, an
    /// element whose slots run past its stride). Real layouts always fit their objects: a
    /// block smaller than its layout has a metadata word that is stale or planted.
    static func minimumSize(_ layout: CompiledLayout) -> Int {
        func extents(_ slots: [CompiledLayout.Slot], _ dynamics: [DynamicSlot]) -> [Extent] {
            slots.map { Extent(offset: $0.offset, size: 8) }
                + dynamics.map { Extent(offset: $0.offset, size: $0.size) }
        }
        return minimumSize(
            isBlock: layout.kind == .block, fields: extents(layout.slots, layout.dynamics),
            regions: layout.regions.map {
                ($0.counting, $0.stride, extents($0.slots, $0.dynamics))
            })
    }

    /// Where a layout reads: `size` bytes from `offset` (a slot's word, a dynamic value).
    struct Extent {
        var offset: Int
        var size: Int
    }

    /// ``minimumSize(_:)`` of a layout that reads `fields` and, per region, each element's
    /// `extents` at a `stride`, counted as `counting` says; a C block's when `isBlock`.
    static func minimumSize(
        isBlock: Bool, fields: [Extent],
        regions: [(counting: ElementRegion.Counting, stride: Int, extents: [Extent])]
    ) -> Int {
        let never = Int.max
        let limit = Int(UInt32.max)
        func fit(_ extents: [Extent], within: Int) -> Bool {
            extents.allSatisfy { $0.offset >= 0 && $0.size >= 0 && $0.offset <= within - $0.size }
        }
        // The words every object has (metadata, reference count); a C block's header.
        var end = isBlock ? 32 : 16
        guard fit(fields, within: limit) else { return never }
        for field in fields { end = max(end, field.offset + field.size) }
        for region in regions {
            guard region.stride > 0, region.stride <= Int(Int32.max),
                fit(region.extents, within: region.stride)
            else { return never }
            switch region.counting {
            case .prefix(let countOffset, let start):
                guard countOffset >= 0, countOffset < limit, start >= 0, start < limit else {
                    return never
                }
                end = max(end, countOffset + 8)
            case .hashed(let scaleOffset, let bitmapOffset, let baseOffset):
                guard scaleOffset >= 0, scaleOffset < limit, baseOffset >= 0, baseOffset < limit,
                    bitmapOffset >= 0, bitmapOffset < limit
                else { return never }
                end = max(end, scaleOffset + 8, baseOffset + 8)
            }
        }
        return end
    }
}
