// PRIVATE SWIFT RUNTIME DETAILS (Swift 6.3, 64-bit), read remotely.
//
// Relied on (besides what libswiftRemoteMirror knows):
//   • A closure context's metadata: u32 offset of the first capture @8, capture descriptor @16,
//     whose u32 @8 counts the generic bindings (a context with bindings lays its captures out
//     per instance: read conservatively).
//   • A box's metadata: u32 offset of the value @8, the boxed type's metadata @16.
//   • A C block: isa, flags (u32 @8, retain count in bits 1–15), reserved, invoke, descriptor
//     @24 (its second word is the block's size); captured variables from @32.
//   • A task is read conservatively from @16 over its first 8 KiB (its first async frame).

/// Compiles, once per metadata, where heap objects of that metadata hold references, with the
/// remote mirror (the toolchain's reading of the target's reflection metadata) and the
/// standard collections' known storage layouts.
///
/// Labels and type names are spelled as the in-process census spells them: property paths
/// (`state.timer`), captures (`captures Owner`), elements (`element of [Entry]`), type names
/// (`closure context (captures Owner)`, `[Entry] storage`).
final class RemoteLayoutCompiler {
    let mirror: RemoteMirror
    let memory: ProcessMemory
    private(set) var labels = LabelTable()
    private(set) var layouts: [RemoteLayout] = []
    private var indexByMetadata: [UInt: Int32] = [:]
    /// Value layouts by type, relative to the value's start.
    var valueCache: [UInt64: ValueSlots] = [:]
    var nameCache: [UInt64: String] = [:]
    /// Type names of metadata, for boxes and captures.
    private var timerMetadata: [UInt: Bool] = [:]

    /// How deep value types may nest before the compiler stops (a guard, not a real limit).
    static let maximumNesting = 24
    /// The most words of a task, block or unreadable value read conservatively.
    static let taskBytes = 8192

    init(mirror: RemoteMirror, memory: ProcessMemory) {
        self.mirror = mirror
        self.memory = memory
    }

    /// The index of the layout for objects of `kind` whose first word is `metadata`, compiling
    /// it from `sample` (one such object) if new.
    func layoutIndex(metadata: UInt, kind: ObjectKind, sample: UInt) -> Int32 {
        if let known = indexByMetadata[metadata] { return known }
        var layout = compile(metadata: metadata, kind: kind, sample: sample)
        if layout.conservativeFrom != nil, layout.conservativeLabel == 0 {
            layout.conservativeLabel = labels.number("captures (read conservatively)")
        }
        let index = Int32(layouts.count)
        layouts.append(layout)
        indexByMetadata[metadata] = index
        return index
    }

    /// The number of `label` in the label table.
    func labelNumber(_ label: String) -> Int32 { labels.number(label) }

    private func compile(metadata: UInt, kind: ObjectKind, sample: UInt) -> RemoteLayout {
        switch kind {
        case .instance:
            return instanceLayout(metadata: metadata, sample: sample)
        case .closureContext:
            return contextLayout(metadata: metadata, sample: sample)
        case .box:
            return boxLayout(metadata: metadata)
        case .task:
            var layout = RemoteLayout(typeName: "Task", shape: .task)
            layout.conservativeFrom = 16
            layout.conservativeLimit = Self.taskBytes
            layout.conservativeLabel = labels.number("runs (read conservatively)")
            return layout
        case .block:
            var layout = RemoteLayout(typeName: "block", shape: .block)
            layout.conservativeFrom = 32
            layout.conservativeLabel = labels.number("captures (read conservatively)")
            return layout
        case .errorBox:
            var layout = RemoteLayout(typeName: "error box", shape: .other)
            layout.conservativeFrom = 16
            layout.conservativeLimit = 512
            return layout
        case .job:
            var layout = RemoteLayout(typeName: "job", shape: .other)
            layout.conservativeFrom = 16
            layout.conservativeLimit = 512
            return layout
        }
    }

    /// The demangled name of a type, cached.
    func name(of typeRef: UInt64) -> String? {
        if let known = nameCache[typeRef] { return known }
        let name = mirror.name(of: typeRef).map(TypeNames.cleaned)
        if let name { nameCache[typeRef] = name }
        return name
    }

    private func instanceLayout(metadata: UInt, sample: UInt) -> RemoteLayout {
        let typeRef = mirror.typeRef(forMetadata: metadata)
        let typeName = name(of: typeRef) ?? "object"
        if let storage = collectionStorageLayout(
            typeName: typeName, typeRef: typeRef, metadata: metadata, sample: sample)
        {
            return storage
        }
        var layout = RemoteLayout(typeName: typeName, shape: .instance)
        layout.isTimer = isTimerClass(metadata)
        guard let instance = mirror.layout(ofInstance: sample), instance.kind == .classInstance
        else {
            layout.problem = "no field metadata: read conservatively"
            layout.conservativeFrom = 16
            layout.conservativeLimit = 512
            return layout
        }
        var slots = ValueSlots()
        for (index, child) in instance.children.enumerated() {
            let end =
                index + 1 < instance.children.count ? instance.children[index + 1].offset : nil
            slots.append(
                childSlots(child, end: end, nesting: 0).placed(at: child.offset, under: child.name))
        }
        if layout.isTimer {
            layout.timerStorageOffset = slots.slots.first { $0.label == "_timerStorage" }?.offset
        }
        apply(slots, to: &layout)
        return layout
    }

    /// Adds value slots to a layout, interning their labels.
    func apply(_ slots: ValueSlots, to layout: inout RemoteLayout) {
        layout.slots += slots.slots.map {
            LayoutSlot(offset: $0.offset, ownership: $0.ownership, label: labels.number($0.label))
        }
        layout.dynamics += slots.dynamics
    }

    /// Whether the class at `metadata` is `Foundation.Timer` or inherits from it.
    private func isTimerClass(_ metadata: UInt) -> Bool {
        var current = metadata
        var hops = 0
        while current != 0, hops < 64 {
            if let known = timerMetadata[current] { return known }
            let typeRef = mirror.typeRef(forMetadata: current)
            if name(of: typeRef) == "Foundation.Timer" {
                timerMetadata[metadata] = true
                return true
            }
            current = memory.word(at: current + 8) ?? 0  // the superclass
            hops += 1
        }
        timerMetadata[metadata] = false
        return false
    }

    private func contextLayout(metadata: UInt, sample: UInt) -> RemoteLayout {
        var layout = RemoteLayout(typeName: "closure context", shape: .closureContext)
        let firstCapture = Int(memory.uint32(at: metadata + 8) ?? 16)
        guard let descriptor = memory.word(at: metadata + 16), descriptor != 0 else {
            layout.problem = "no capture descriptor: captures read conservatively"
            layout.conservativeFrom = firstCapture
            return layout
        }
        if let bindings = memory.uint32(at: descriptor + 8), bindings != 0 {
            layout.problem = "generic closure context: captures read conservatively"
            layout.conservativeFrom = firstCapture
            return layout
        }
        guard let context = mirror.layout(ofInstance: sample), context.kind == .closureContext
        else {
            layout.problem = "captures not described: read conservatively"
            layout.conservativeFrom = firstCapture
            return layout
        }
        var captured: [String] = []
        var slots = ValueSlots()
        for (index, child) in context.children.enumerated() {
            let typeName = name(of: child.typeRef) ?? ""
            let captureName: String
            switch child.kind {
            case .thickFunction: captureName = "closure"
            case _ where typeName.isEmpty || typeName.hasPrefix("Builtin."): captureName = "var"
            default: captureName = TypeNames.captureName(typeName)
            }
            captured.append(captureName)
            let label =
                captureName == "closure"
                ? "captures a closure"
                : captureName == "var" ? "captures a var" : "captures \(captureName)"
            let end = index + 1 < context.children.count ? context.children[index + 1].offset : nil
            var child = child
            if captureName == "var", child.kind == .builtin || child.kind == .unknown {
                child.kind = .strongReference  // a box of a captured `var`
            }
            slots.append(
                childSlots(child, end: end, nesting: 0).placed(at: child.offset, under: label))
        }
        if !captured.isEmpty {
            layout.typeName = "closure context (captures \(captured.joined(separator: ", ")))"
        }
        apply(slots, to: &layout)
        return layout
    }

    private func boxLayout(metadata: UInt) -> RemoteLayout {
        var layout = RemoteLayout(typeName: "box", shape: .box)
        guard let offset = memory.uint32(at: metadata + 8),
            let boxed = memory.word(at: metadata + 16)
        else { return layout }
        let typeRef = mirror.typeRef(forMetadata: boxed)
        guard let value = valueSlots(of: typeRef, nesting: 0) else {
            layout.problem = "boxed type not described: read conservatively"
            layout.conservativeFrom = Int(offset)
            layout.conservativeLimit = Int(offset) + 256
            return layout
        }
        apply(value.placed(at: Int(offset), under: "value"), to: &layout)
        return layout
    }
}
