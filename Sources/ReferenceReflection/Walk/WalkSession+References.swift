import RetainGraph

/// Turning stored words into retained objects, by ownership, and recording the references.
extension WalkSession {
    /// The object a strong reference at `address` points to, retained, after checking that the
    /// word is a plausible pointer to an object whose metadata is a Swift class.
    ///
    /// The caller holds the object containing `address`, whose strong reference keeps the
    /// target alive until the `takeUnretainedValue` below has retained it.
    func strongObject(at address: UnsafeRawPointer, site: Site) -> AnyObject? {
        let raw = RuntimeABI.word(at: address)
        guard raw != 0 else { return nil }
        guard RuntimeABI.isPlausiblePointer(raw), let pointer = UnsafeRawPointer(bitPattern: raw),
            let isa = RuntimeABI.pointer(at: pointer),
            TypeMetadata(address: isa).kind == .class
        else {
            report(.unrecognisedMetadata, typeName: "", "\(site.path): not a Swift object; skipped")
            return nil
        }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Records a reference to a retained object and queues the object for reading when it is
    /// held strongly (or when the limits ask to follow weak references too).
    func reach(_ object: AnyObject, site: Site, kind: ReferenceKind) {
        let id = node(for: object, shape: .instance)
        addReference(from: site.holder, to: id, kind: kind, role: site.role)
        if kind == .strong || limits.followsWeakReferences {
            enqueue(object, id: id, depth: site.depth + 1, shape: .instance)
        }
    }

    /// Reads a `weak`, `unowned` or `unowned(unsafe)` property or capture.
    ///
    /// - A weak reference's word is a side-table reference, never an object pointer: its
    ///   target is loaded with `swift_weakLoadStrong`, which returns nil for a dead target.
    /// - An unowned reference's word is the object pointer; the object's memory stays allocated
    ///   while the reference exists, and `swift_tryRetain` refuses objects being deinitialised.
    /// - An `unowned(unsafe)` word may point at freed memory: it is never dereferenced, only
    ///   matched at the end of the walk against the addresses of objects the walk holds.
    func visitReferenceStorage(
        _ ownership: ReferenceOwnership, referent: Any.Type, at address: UnsafeRawPointer,
        site: Site
    ) {
        var shape = TypeMetadata(referent)
        if shape.kind == .optional, let wrapped = shape.valueGenericArgument(0) { shape = wrapped }
        guard shape.kind == .class || isClassBoundExistential(shape) else {
            report(
                .unrecognisedMetadata, typeName: _typeName(referent),
                "\(site.path): \(ownership) reference to an unexpected type; not read")
            return
        }
        switch ownership {
        case .strong:
            visitValue(referent, at: address, site: site, nesting: 0)
        case .weak:
            guard RuntimeABI.canLoadWeakAndUnowned else {
                report(.runtimeUnsupported, typeName: "", "swift_weakLoadStrong not found")
                return
            }
            guard let pointer = RuntimeABI.loadWeakRetained(at: address) else { return }
            let object = Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue()
            guard isSwiftInstance(object) else { return }
            reach(object, site: site, kind: .weak)
        case .unowned:
            let raw = RuntimeABI.word(at: address)
            guard raw != 0 else { return }
            guard RuntimeABI.canLoadWeakAndUnowned, RuntimeABI.isPlausiblePointer(raw),
                let pointer = UnsafeRawPointer(bitPattern: raw)
            else {
                report(.unresolvedTarget, typeName: "", "\(site.path): unowned target unreadable")
                return
            }
            guard RuntimeABI.retainUnownedTarget(pointer) else {
                report(
                    .deallocatedTarget, typeName: "",
                    "\(site.path): unowned reference to an object already deinitialised")
                return
            }
            let object = Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue()
            guard isSwiftInstance(object) else { return }
            reach(object, site: site, kind: .unowned)
        case .unmanaged:
            let raw = RuntimeABI.word(at: address)
            guard raw != 0 else { return }
            unmanagedReferences.append((site, raw))
        }
    }

    /// Matches `unowned(unsafe)` words with the objects the walk holds (whose addresses cannot
    /// have been reused, because they are alive); the rest are reported, never followed.
    func resolveUnmanagedReferences() {
        guard !unmanagedReferences.isEmpty else { return }
        var byAddress: [UInt: ObjectID] = [:]
        for object in retained {
            let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
            if let id = ids[ObjectIdentifier(object)] { byAddress[address] = id }
        }
        for (site, address) in unmanagedReferences {
            if let id = byAddress[address] {
                addReference(from: site.holder, to: id, kind: .unowned, role: site.role)
            } else {
                report(
                    .unresolvedTarget, typeName: "",
                    "\(site.path): unowned(unsafe) target not reached by the walk; not dereferenced"
                )
            }
        }
        unmanagedReferences.removeAll()
    }
}
