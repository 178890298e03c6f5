import ObjectGraph
import RetainGraphUtilities

extension LayoutCompiler {
    /// The layout of a closure context: its captures, named after their types, or read
    /// conservatively from where decoding stopped.
    func contextLayout(_ metadata: UInt, sample: UInt?) -> ObjectLayout {
        var layout = ObjectLayout(kind: .closureContext, typeName: "closure context")
        layout.problemKind = .undecodableClosure
        let context = source.captures(ofContextMetadata: metadata, sample: sample)
        for capture in context.captures {
            layout.captures.append(capture.name)
            let base = RoleBase.capture(capture.name)
            switch capture.content {
            case .value(let type, let storage):
                appendChild(
                    TypeChild(name: "", offset: capture.offset, type: type, storage: storage),
                    end: nil, at: 0, base: base, path: "", into: &layout.fields, nesting: 0)
            case .box:
                layout.fields.slots.append(
                    LayoutSlot(
                        offset: capture.offset, ownership: .strong, role: .capture(name: "var")))
            case .thickFunction:
                layout.fields.slots.append(
                    LayoutSlot(
                        offset: capture.offset + 8, ownership: .strong,
                        role: .capture(name: "closure"), isFunctionContext: true))
            case .thinFunction:
                continue
            }
        }
        if !layout.captures.isEmpty {
            layout.typeName =
                "closure context (captures \(layout.captures.joined(separator: ", ")))"
        }
        // Named by what it is, whether or not the source could decode its capture.
        if RuntimeTasks.isSleepWakeUpClosure(captureTypeNames: context.typeNames) {
            layout.typeName = RuntimeTasks.sleepWakeUpClosure
            layout.isSleepWakeUp = true
            // Its one capture is a pointer to a word the runtime allocated, not an object: there
            // is nothing to read conservatively.
            layout.fields = ValueLayout()
            layout.problem = nil
            layout.conservativeFrom = nil
            layout.dependsOnInstance = false
            return layout
        }
        if let problem = context.problem {
            // The captures after the last decoded one are read conservatively.
            layout.problem = problem
            layout.conservativeFrom = context.decodedEnd ?? context.firstCaptureOffset
            layout.dependsOnInstance = context.dependsOnInstance
        }
        return layout
    }

    /// The layout of a standard collection's storage object: its tail-allocated elements (an
    /// array's from its count, a set's and a dictionary's keys and values from the bitmap of
    /// occupied buckets).
    func storageLayout(_ storage: CollectionStorage) -> ObjectLayout {
        let names = storage.arguments.map {
            source.name(of: $0).map(TypeNames.unqualified) ?? "?"
        }
        var layout = ObjectLayout(kind: .collectionStorage, typeName: "collection storage")
        switch storage.kind {
        case .array:
            guard let element = storage.arguments.first else {
                return unreadable(layout, "array storage", "element type unknown")
            }
            // Arrays of class instances share `_ContiguousArrayStorage<AnyObject>`.
            let isObjects = names[0] == "AnyObject"
            let collection = isObjects ? "an array" : "[\(names[0])]"
            layout.typeName = isObjects ? "array storage" : "\(collection) storage"
            guard let shape = source.shape(of: element) else {
                return unreadable(layout, layout.typeName, "element type not described")
            }
            let start = (32 + shape.alignment - 1) & ~(shape.alignment - 1)
            addRegion(
                element, base: .element(collection),
                counting: .prefix(countOffset: 16, start: start),
                stride: shape.stride, to: &layout)
        case .dictionary:
            guard storage.arguments.count == 2, storage.baseOffsets.count == 2 else {
                return unreadable(layout, "dictionary storage", "key or value type unknown")
            }
            let collection = "[\(names[0]): \(names[1])]"
            layout.typeName = "\(collection) storage"
            for (index, base) in [RoleBase.key(collection), .value(collection)].enumerated() {
                guard let shape = source.shape(of: storage.arguments[index]) else { continue }
                addRegion(
                    storage.arguments[index], base: base,
                    counting: .hashed(
                        scaleOffset: storage.scaleOffset, bitmapOffset: storage.instanceSize,
                        baseOffset: storage.baseOffsets[index]),
                    stride: shape.stride, to: &layout)
            }
        case .set:
            guard let element = storage.arguments.first, let base = storage.baseOffsets.first
            else { return unreadable(layout, "set storage", "element type unknown") }
            let collection = "Set<\(names[0])>"
            layout.typeName = "\(collection) storage"
            guard let shape = source.shape(of: element) else {
                return unreadable(layout, layout.typeName, "element type not described")
            }
            addRegion(
                element, base: .element(collection),
                counting: .hashed(
                    scaleOffset: storage.scaleOffset, bitmapOffset: storage.instanceSize,
                    baseOffset: base),
                stride: shape.stride, to: &layout)
        }
        return layout
    }

    /// Adds a region of elements of `type` held by `base`, unless they hold no reference.
    private func addRegion(
        _ type: TypeHandle, base: RoleBase, counting: ElementRegion.Counting, stride: Int,
        to layout: inout ObjectLayout
    ) {
        var element = ValueLayout()
        appendValue(type, at: 0, base: base, path: "", into: &element, nesting: 0)
        guard !element.isEmpty else { return }
        layout.regions.append(
            ElementRegion(counting: counting, stride: max(stride, 1), element: element))
    }

    private func unreadable(_ layout: ObjectLayout, _ name: String, _ problem: String)
        -> ObjectLayout
    {
        var layout = layout
        layout.typeName = name
        layout.problem = problem
        return layout
    }
}
