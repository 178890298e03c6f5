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

import ObjectGraph
import RuntimeLayouts
import RetainGraphUtilities

/// Compiles, once per metadata, where heap objects of that metadata hold references, with the
/// remote mirror (the toolchain's reading of the target's reflection metadata) and the
/// standard collections' known storage layouts.
///
/// It reads another process, which the in-process layout compiler (`RuntimeLayouts`) cannot,
/// but names what it finds the same way: type names (`closure context (captures Owner)`,
/// `[Entry] storage`) and roles (`ReferenceRole`s made from a `RoleBase` and a property path:
/// `.state.timer`, `captures Owner`, `element of [Entry]`).
final class RemoteLayoutCompiler {
    let mirror: RemoteMirror
    let memory: ProcessMemory
    /// The roles of the compiled slots, by number.
    private(set) var roles = InternedRoles()
    private(set) var layouts: [RemoteLayout] = []
    private var indexByMetadata: [UInt: Int32] = [:]
    /// Value layouts by type, relative to the value's start.
    var valueCache: [UInt64: ValueSlots] = [:]
    var nameCache: [UInt64: String] = [:]
    /// Whether a class metadata is `Foundation.Timer` or a subclass.
    private var timerMetadata: [UInt: Bool] = [:]

    /// How deep value types may nest before the compiler stops (a guard, not a real limit).
    static let maximumNesting = 24
    /// The most bytes of a task read conservatively (its header and first async frame).
    static let taskBytes = 8192

    init(mirror: RemoteMirror, memory: ProcessMemory) {
        self.mirror = mirror
        self.memory = memory
    }

    /// The index of the layout for objects of `kind` whose first word is `metadata`, compiling
    /// it from `sample` (one such object) if new.
    func layoutIndex(metadata: UInt, kind: ObjectKind, sample: UInt) -> Int32 {
        if let known = indexByMetadata[metadata] { return known }
        let layout = compile(metadata: metadata, kind: kind, sample: sample)
        let index = Int32(layouts.count)
        layouts.append(layout)
        indexByMetadata[metadata] = index
        return index
    }

    /// The number of `role` in the compiler's role table.
    func roleNumber(_ role: ReferenceRole) -> UInt32 { roles.intern(role) }

    private func compile(metadata: UInt, kind: ObjectKind, sample: UInt) -> RemoteLayout {
        switch kind {
        case .instance:
            return instanceLayout(metadata: metadata)
        case .closureContext:
            return contextLayout(metadata: metadata, sample: sample)
        case .box:
            return boxLayout(metadata: metadata)
        case .task:
            return conservative("Task", .task, from: 16, limit: Self.taskBytes, role: .runs)
        case .block:
            return conservative(
                "block", .block, from: 32, limit: .max, role: ObjectLayout.targetNamedCapture)
        case .errorBox:
            return conservative(
                "error box", .other, from: 16, limit: 512, role: .boxedValue(path: ""))
        case .job:
            return conservative("job", .other, from: 16, limit: 512, role: .runs)
        }
    }

    /// A layout read conservatively from `start`: every word that is an object's address.
    private func conservative(
        _ typeName: String, _ shape: RemoteLayout.Shape, from start: Int, limit: Int,
        role: ReferenceRole
    ) -> RemoteLayout {
        var layout = RemoteLayout(typeName: typeName, shape: shape)
        layout.conservativeFrom = start
        layout.conservativeLimit = limit
        layout.conservativeRole = roles.intern(role)
        return layout
    }

    /// The demangled name of a type, cached, without the addresses the remote demangler
    /// prints for private and local contexts.
    func name(of typeRef: UInt64) -> String? {
        if let known = nameCache[typeRef] { return known }
        let name = mirror.name(of: typeRef).map(TypeNames.readable)
        if let name { nameCache[typeRef] = name }
        return name
    }

    private func instanceLayout(metadata: UInt) -> RemoteLayout {
        let typeRef = mirror.typeRef(forMetadata: metadata)
        let typeName = name(of: typeRef) ?? "object"
        if let storage = collectionStorageLayout(
            typeName: typeName, typeRef: typeRef, metadata: metadata)
        {
            return storage
        }
        var layout = RemoteLayout(typeName: typeName, shape: .instance)
        layout.isTimer = isTimerClass(metadata)
        let (fields, unlaidOut) = storedFields(ofClass: metadata)
        if !unlaidOut.isEmpty {
            let classes =
                unlaidOut == [typeName] ? "" : " (in \(unlaidOut.joined(separator: ", ")))"
            layout.problem =
                "fields the mirror cannot lay out\(classes), such as an Atomic or a Mutex: "
                + "named from the class descriptor, read conservatively where untyped"
        }
        guard let fields else {
            layout.problem = "no field metadata: read conservatively"
            layout.conservativeFrom = 16
            layout.conservativeLimit = 512
            layout.conservativeRole = roles.intern(.storedProperty(name: "(no field metadata)"))
            return layout
        }
        var slots = ValueSlots()
        let instanceSize = memory.uint32(at: metadata + 24).map { Int($0) }
        for (index, child) in fields.enumerated() {
            let end = index + 1 < fields.count ? fields[index + 1].offset : instanceSize
            slots.append(
                childSlots(child, end: end, nesting: 0).placed(at: child.offset, under: child.name))
        }
        if layout.isTimer {
            layout.timerStorageOffset = slots.slots.first { $0.path == "_timerStorage" }?.offset
        }
        apply(slots, base: .property, to: &layout)
        return layout
    }

    /// Adds value slots held by `base` to a layout, interning their roles.
    func apply(_ slots: ValueSlots, base: RoleBase, to layout: inout RemoteLayout) {
        layout.slots += remoteSlots(slots, base: base)
        layout.dynamics += slots.dynamics.map {
            var dynamic = $0
            dynamic.base = base
            return dynamic
        }
    }

    /// Value slots as object slots held by `base`, their roles interned.
    func remoteSlots(_ slots: ValueSlots, base: RoleBase) -> [RemoteSlot] {
        slots.slots.map {
            RemoteSlot(
                offset: $0.offset, ownership: $0.ownership, role: roles.intern(base.role($0.path)),
                isFunctionContext: $0.isFunctionContext)
        }
    }

    /// Whether the class at `metadata` is `Foundation.Timer` or inherits from it.
    private func isTimerClass(_ metadata: UInt) -> Bool {
        var current = metadata
        var hops = 0
        while current != 0, hops < 64 {
            if let known = timerMetadata[current] { return known }
            let typeRef = mirror.typeRef(forMetadata: current)
            if let name = name(of: typeRef), KnownType(typeName: name) == .foundationTimer {
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
        func unreadable(_ problem: String) -> RemoteLayout {
            layout.problem = problem
            layout.conservativeFrom = firstCapture
            layout.conservativeRole = roles.intern(ObjectLayout.targetNamedCapture)
            return layout
        }
        guard let descriptor = memory.word(at: metadata + 16), descriptor != 0 else {
            return unreadable("no capture descriptor: captures read conservatively")
        }
        if let bindings = memory.uint32(at: descriptor + 8), bindings != 0 {
            return unreadable("generic closure context: captures read conservatively")
        }
        guard let context = mirror.layout(ofInstance: sample), context.kind == .closureContext
        else { return unreadable("captures not described: read conservatively") }
        for (index, child) in context.children.enumerated() {
            let typeName = name(of: child.typeRef) ?? ""
            let captureName: String
            switch child.kind {
            case .thickFunction: captureName = "closure"
            case _ where Self.isBoxTypeName(typeName): captureName = "var"
            default: captureName = TypeNames.captureName(typeName)
            }
            layout.captures.append(captureName)
            let end = index + 1 < context.children.count ? context.children[index + 1].offset : nil
            var child = child
            if captureName == "var", child.kind == .builtin || child.kind == .unknown {
                child.kind = .strongReference  // a box of a captured `var`
            }
            apply(
                childSlots(child, end: end, nesting: 0).placed(at: child.offset, under: ""),
                base: .capture(captureName), to: &layout)
        }
        if !layout.captures.isEmpty {
            layout.typeName =
                "closure context (captures \(layout.captures.joined(separator: ", ")))"
        }
        return layout
    }

    private func boxLayout(metadata: UInt) -> RemoteLayout {
        var layout = RemoteLayout(typeName: "box", shape: .box)
        guard let offset = memory.uint32(at: metadata + 8),
            let boxed = memory.word(at: metadata + 16)
        else { return layout }
        let typeRef = mirror.typeRef(forMetadata: boxed)
        layout.captures = [TypeNames.captureName(name(of: typeRef) ?? "")]
        guard let value = valueSlots(of: typeRef, nesting: 0) else {
            layout.problem = "boxed type not described: read conservatively"
            layout.conservativeFrom = Int(offset)
            layout.conservativeLimit = Int(offset) + 256
            layout.conservativeRole = roles.intern(.boxedValue(path: ""))
            return layout
        }
        apply(value.placed(at: Int(offset), under: ""), base: .boxed, to: &layout)
        return layout
    }
}

extension RemoteLayoutCompiler {
    /// Whether a capture of this type is the box of a captured `var`: the remote demangler
    /// spells a box's type as a SIL box (`<> { var Swift.Int } <>`), or gives no name or a
    /// builtin one; no Swift type's name starts with `<` or `{`.
    static func isBoxTypeName(_ name: String) -> Bool {
        name.isEmpty || name.hasPrefix("Builtin.") || name.first == "<" || name.first == "{"
    }
}
