import RetainGraph
import RuntimeLayouts

/// Executing a compiled layout on a retained object: its fixed slots, its dynamic values (enum
/// payloads, existentials), the elements of collection storage, and what is read
/// conservatively.
extension WalkSession {
    /// Reads every reference of a retained object.
    func expand(_ object: AnyObject, id: ObjectID, depth: Int) {
        withExtendedLifetime(object) {
            guard let layout = layout(of: object) else { return }
            let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            let size = ObjectMemory.blockSize(ofObjectAt: base)
            for slot in layout.slots {
                read(slot, at: base + slot.offset, holder: id, depth: depth)
            }
            readDynamics(layout.dynamics, in: base, holder: id, depth: depth)
            for region in layout.regions {
                readRegion(region, of: base, blockSize: size, holder: id, depth: depth)
            }
            if let start = layout.conservativeFrom {
                let role = registry.role(layout.conservativeRole)
                var offset = (start + 7) & ~7
                while offset + 8 <= size {
                    let word = ObjectMemory.word(at: base, offset: offset)
                    if word & 15 == 0, word >= 4096 {
                        unresolved.append((id, .conservative, role, word))
                    }
                    offset += 8
                }
            }
        }
    }

    /// Reads one slot whose word lies at `address` (in a retained object, or in a copy of a
    /// value taken from one).
    func read(
        _ slot: CompiledLayout.Slot, at address: UnsafeRawPointer, holder: ObjectID, depth: Int
    ) {
        let word =
            slot.isStringObject
            ? StringObject.storage(ObjectMemory.word(at: address)) : ObjectMemory.word(at: address)
        guard word != 0 else { return }
        let role = registry.role(slot.role)
        switch slot.ownership {
        case .strong:
            guard ObjectMemory.isPlausiblePointer(word),
                let pointer = UnsafeRawPointer(bitPattern: word),
                let kind = ObjectMemory.kind(ofObjectAt: pointer)
            else {
                report(.unrecognisedMetadata, "\(role.description): not a Swift object; skipped")
                return
            }
            // The holder's strong reference keeps the target alive until this retain.
            let object = Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
            if kind == .closureContext, let thunk = layout(of: object), thunk.isThunk {
                // A reabstraction thunk: read the closure it wraps as the holder's own.
                withExtendedLifetime(object) {
                    var inner = thunk.slots[0]
                    inner.role = slot.role
                    read(inner, at: pointer + inner.offset, holder: holder, depth: depth)
                }
                return
            }
            var effective = role
            if slot.isFunctionContext, kind == .instance {
                // The closure's only capture is its context: a capture of that object.
                effective = role.capturing(ObjectMemory.captureName(of: object))
            }
            reach(
                object, role: effective, ownership: .strong, holder: holder, depth: depth,
                isBox: slot.isBox)
        case .weak:
            guard ObjectMemory.canLoadWeakAndUnowned else {
                report(.runtimeUnsupported, "swift_weakLoadStrong not found")
                return
            }
            guard let pointer = ObjectMemory.loadWeakRetained(at: address) else { return }
            let object = Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue()
            reach(object, role: role, ownership: .weak, holder: holder, depth: depth)
        case .unowned:
            guard ObjectMemory.canLoadWeakAndUnowned, ObjectMemory.isPlausiblePointer(word),
                let pointer = UnsafeRawPointer(bitPattern: word)
            else {
                report(.unresolvedTarget, "\(role.description): unowned target unreadable")
                return
            }
            guard ObjectMemory.retainUnownedTarget(pointer) else {
                report(
                    .deallocatedTarget,
                    "\(role.description): unowned reference to an object already deinitialised")
                return
            }
            let object = Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue()
            reach(object, role: role, ownership: .unowned, holder: holder, depth: depth)
        case .unownedUnsafe, .conservative:
            unresolved.append((holder, slot.ownership, role, word))
        }
    }

    /// Records a reference to a retained object, and queues the object for reading when it is
    /// held strongly (or when the limits ask to follow weak references too).
    func reach(
        _ object: AnyObject, role: ReferenceRole, ownership: Ownership, holder: ObjectID,
        depth: Int,
        isBox: Bool = false
    ) {
        let id = node(for: object, layout: layout(of: object), isBox: isBox)
        addReference(from: holder, to: id, ownership: ownership, role: role)
        if ownership.retainsTarget || limits.followsWeakReferences {
            enqueue(object, id: id, depth: depth + 1)
        }
    }

    /// Copies each dynamic value (enum, existential) out of the retained object and reads the
    /// references it holds.
    func readDynamics(
        _ dynamics: [DynamicSlot], in base: UnsafeRawPointer, holder: ObjectID, depth: Int
    ) {
        for dynamic in dynamics {
            let copy = UnsafeMutableRawPointer.allocate(byteCount: dynamic.size, alignment: 16)
            defer { copy.deallocate() }
            copy.copyMemory(from: base + dynamic.offset, byteCount: dynamic.size)
            registry.compiler.decode(
                dynamic, copy: copy, address: UInt(bitPattern: base + dynamic.offset)
            ) { word, slot in
                withUnsafePointer(to: word) { pointer in
                    let compiled = CompiledLayout.Slot(
                        offset: 0, ownership: slot.ownership,
                        role: registry.roleNumber(slot.role),
                        isFunctionContext: slot.isFunctionContext, isBox: slot.isBox)
                    read(compiled, at: UnsafeRawPointer(pointer), holder: holder, depth: depth)
                }
            }
        }
    }

    /// Reads the elements of a collection storage object, within the element budget.
    func readRegion(
        _ region: CompiledLayout.Region, of object: UnsafeRawPointer, blockSize: Int,
        holder: ObjectID, depth: Int
    ) {
        let end = UInt(bitPattern: object) &+ UInt(blockSize)
        var visited = 0
        func element(at start: UnsafeRawPointer) -> Bool {
            guard visited < limits.maxCollectionElements else {
                truncate(
                    "only the first \(limits.maxCollectionElements) elements of a collection read")
                return false
            }
            visited += 1
            for slot in region.slots {
                read(slot, at: start + slot.offset, holder: holder, depth: depth)
            }
            readDynamics(region.dynamics, in: start, holder: holder, depth: depth)
            return true
        }
        switch region.counting {
        case .prefix(let countOffset, let start):
            let count = Int(bitPattern: ObjectMemory.word(at: object, offset: countOffset))
            guard count > 0, start < blockSize else { return }
            let fitting = (blockSize - start) / region.stride
            for index in 0..<min(count, fitting) {
                guard element(at: object + start + index * region.stride) else { return }
            }
        case .hashed(let scaleOffset, let bitmapOffset, let baseOffset):
            let scale = Int(
                Int8(truncatingIfNeeded: ObjectMemory.word(at: object, offset: scaleOffset)))
            guard scale >= 0, scale < 40 else { return }
            let buckets = 1 << scale
            let words = (buckets + 63) / 64
            let elements = ObjectMemory.word(at: object, offset: baseOffset)
            guard bitmapOffset + 8 * words <= blockSize,
                elements >= UInt(bitPattern: object),
                elements &+ UInt(buckets * region.stride) <= end,
                let first = UnsafeRawPointer(bitPattern: elements)
            else { return }
            for wordIndex in 0..<words {
                var bits = ObjectMemory.word(at: object, offset: bitmapOffset + 8 * wordIndex)
                while bits != 0 {
                    let bucket = wordIndex * 64 + bits.trailingZeroBitCount
                    bits &= bits - 1
                    guard bucket < buckets else { break }
                    guard element(at: first + bucket * region.stride) else { return }
                }
            }
        }
    }

    /// Matches the words never dereferenced (`unowned(unsafe)`, conservative) with the objects
    /// the walk holds (whose addresses cannot have been reused, because they are alive); the
    /// `unowned(unsafe)` ones left are reported, never followed.
    func resolveUnreadWords() {
        guard !unresolved.isEmpty else { return }
        var byAddress: [UInt: (id: ObjectID, name: String)] = [:]
        for object in retained {
            let pointer = Unmanaged.passUnretained(object).toOpaque()
            guard let id = ids[ObjectIdentifier(object)] else { continue }
            let name =
                ObjectMemory.kind(ofObjectAt: pointer) == .closureContext
                ? "a closure" : ObjectMemory.captureName(of: object)
            byAddress[UInt(bitPattern: pointer)] = (id, name)
        }
        for (holder, ownership, role, word) in unresolved {
            if let target = byAddress[word], target.id != holder {
                // A capture read without its type is named after what it points at.
                let named =
                    role == ObjectLayout.targetNamedCapture ? .capture(name: target.name) : role
                addReference(from: holder, to: target.id, ownership: ownership, role: named)
            } else if ownership == .unownedUnsafe {
                report(
                    .unresolvedTarget,
                    "\(role.description): unowned(unsafe) target not reached by the walk; not dereferenced"
                )
            }
        }
        unresolved.removeAll()
    }
}
