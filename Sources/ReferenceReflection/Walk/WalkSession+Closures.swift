import RetainGraph

/// Reading closures: function values, their contexts, and the boxes of captured `var`s.
extension WalkSession {
    /// Reads a function value stored at `address`: a thick Swift function is a (function
    /// pointer, context) pair; thin, C and block functions capture nothing the walker can read.
    func visitFunction(
        _ metadata: TypeMetadata, at address: UnsafeRawPointer, site: Site, nesting: Int
    ) {
        guard isThickFunction(metadata) else {
            let flags = RuntimeABI.word(at: metadata.address, offset: 8)
            if flags & 0x0800_0000 != 0 {
                report(
                    .unrecognisedMetadata, typeName: _typeName(metadata.type),
                    "\(site.path): differentiable function layout not read")
            }
            return
        }
        visitContext(RuntimeABI.word(at: address, offset: 8), site: site, nesting: nesting)
    }

    /// Follows a closure's context word.
    ///
    /// - A null context: the closure captures nothing.
    /// - A class instance: the closure captured exactly that one object strongly (the compiler
    ///   then uses the object itself as the context; method references do the same). A closure
    ///   node is made for it so the path still reads holder ⇒ closure ⇒ object.
    /// - A heap-local context: a closure node whose captures are read when it is expanded. A
    ///   context whose only capture is another function (a reabstraction thunk, made when a
    ///   closure is stored generically, e.g. in an array or an `Any`) is looked through.
    /// - Anything else is reported and not followed.
    func visitContext(_ raw: UInt, site: Site, nesting: Int) {
        guard raw != 0 else { return }
        guard nesting <= limits.maxValueNesting else {
            report(.limitReached, typeName: "closure", "closure nesting limit reached")
            isTruncated = true
            return
        }
        guard RuntimeABI.isPlausiblePointer(raw), let pointer = UnsafeRawPointer(bitPattern: raw),
            let isa = RuntimeABI.pointer(at: pointer)
        else {
            report(.unrecognisedMetadata, typeName: "closure", "\(site.path): unreadable context")
            return
        }
        let metadata = TypeMetadata(address: isa)
        switch metadata.kind {
        case .class:
            let object = Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
            let closure = syntheticClosureNode()
            addReference(from: site.holder, to: closure, kind: .strong, role: site.role)
            let captureSite = Site(
                holder: closure, depth: site.depth + 1, path: captureName(type(of: object)),
                isCapture: true)
            reach(object, site: captureSite, kind: .strong)
        case .heapLocalVariable, .heapGenericLocalVariable:
            let context = Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
            let layout = contextLayout(of: pointer, metadata: metadata)
            if layout.problem == nil, layout.slots.count == 1,
                case .function(.thick) = layout.slots[0].content
            {
                let inner = RuntimeABI.word(at: pointer, offset: layout.slots[0].offset + 8)
                withExtendedLifetime(context) {
                    visitContext(inner, site: site, nesting: nesting + 1)
                }
                return
            }
            let id = node(for: context, shape: .closureContext)
            addReference(from: site.holder, to: id, kind: .strong, role: site.role)
            enqueue(context, id: id, depth: site.depth + 1, shape: .closureContext)
        default:
            report(
                .unrecognisedMetadata, typeName: "closure",
                "\(site.path): context with \(metadata.kind); not followed")
        }
    }

    /// Reads the captures of a retained closure context or box.
    func expandContext(_ object: AnyObject, id: ObjectID, depth: Int, shape: ReachedShape) {
        withExtendedLifetime(object) {
            let pointer = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            guard let isa = RuntimeABI.pointer(at: pointer) else { return }
            let layout = contextLayout(of: pointer, metadata: TypeMetadata(address: isa))
            let isBox = shape == .box
            if let problem = layout.problem {
                report(
                    .undecodableClosure, typeName: isBox ? "captured var" : "closure",
                    "\(problem); \(layout.slots.count) earlier capture(s) read")
            }
            for slot in layout.slots {
                let address = pointer + slot.offset
                switch slot.content {
                case .value(let type, let ownership):
                    let site = Site(
                        holder: id, depth: depth, path: isBox ? "value" : captureName(type),
                        isCapture: !isBox)
                    if ownership == .strong {
                        visitValue(type, at: address, site: site, nesting: 0)
                    } else {
                        visitReferenceStorage(ownership, referent: type, at: address, site: site)
                    }
                case .box:
                    visitBox(RuntimeABI.word(at: address), holder: id, depth: depth)
                case .function(.thick):
                    let site = Site(holder: id, depth: depth, path: "closure", isCapture: true)
                    visitContext(RuntimeABI.word(at: address, offset: 8), site: site, nesting: 0)
                case .function(.thin):
                    continue
                }
            }
        }
    }

    /// Follows a captured `var`'s box pointer (a strong reference to a heap-local object).
    private func visitBox(_ raw: UInt, holder: ObjectID, depth: Int) {
        guard RuntimeABI.isPlausiblePointer(raw), let pointer = UnsafeRawPointer(bitPattern: raw),
            let isa = RuntimeABI.pointer(at: pointer)
        else { return }
        let kind = TypeMetadata(address: isa).kind
        guard kind == .heapLocalVariable || kind == .heapGenericLocalVariable else {
            report(
                .unrecognisedMetadata, typeName: "captured var", "box with \(kind); not followed")
            return
        }
        let box = Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
        let id = node(for: box, shape: .box)
        addReference(from: holder, to: id, kind: .strong, role: .capture(name: "var"))
        enqueue(box, id: id, depth: depth + 1, shape: .box)
    }

    /// The layout of a context, cached per metadata unless it depends on generic bindings.
    func contextLayout(of object: UnsafeRawPointer, metadata: TypeMetadata) -> ContextLayout {
        if let cached = contextLayouts[metadata] { return cached }
        let layout = RuntimeABI.contextLayout(of: object, metadata: metadata)
        if !layout.dependsOnInstance { contextLayouts[metadata] = layout }
        return layout
    }

    /// The name a capture is shown under: its type without module or `Optional`.
    func captureName(_ type: Any.Type) -> String {
        let metadata = TypeMetadata(type)
        if metadata.kind == .optional, let wrapped = metadata.valueGenericArgument(0) {
            return _typeName(wrapped.type, qualified: false)
        }
        return _typeName(type, qualified: false)
    }
}
