// The only Swift file that imports the remote-mirror C door (Sources/CSwiftRemoteMirror): the
// calls through it, each turned into Swift values at once.
internal import CSwiftRemoteMirror
import RetainGraphUtilities

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The layout kinds of libswiftRemoteMirror (`swift_layout_kind_t`).
enum MirrorKind: UInt32 {
    case unknown, builtin, rawPointer, tuple, structure, noPayloadEnum, singlePayloadEnum
    case multiPayloadEnum, thickFunction, opaqueExistential, classExistential, errorExistential
    case existentialMetatype, strongReference, unownedReference, weakReference
    case unmanagedReference, classInstance, closureContext
}

/// A field, capture or enum case as the mirror describes it.
struct MirrorChild {
    var name: String
    var offset: Int
    var kind: MirrorKind
    /// The child's type (0 when the mirror has none).
    var typeRef: UInt64
}

/// A type's or an instance's layout as the mirror describes it.
struct MirrorLayout {
    var kind: MirrorKind
    var size: Int
    var alignment: Int
    var stride: Int
    var children: [MirrorChild]
}

/// One reflection context over a captured process's memory (or this process's own, for its
/// tasks).
///
/// Every call into the library is guarded (the C door's `RG_MIRROR_GUARDED`): when the library
/// aborts (its demangler's fatal assertions) or faults on the words it was given, the call
/// returns as if it had found nothing, ``failure`` says what happened, and the context, whose
/// state may be inconsistent, is never called again (nor destroyed: it is left allocated).
///
/// Not thread-safe (nor is the library's context): use it from one thread, the one that made
/// it (its alternate signal stack is that thread's).
final class RemoteMirror {
    private let library: MirrorLibrary
    private let reader: MirrorReader
    private let context: UnsafeMutableRawPointer
    /// What the library did when it failed on this context (after which it is not called
    /// again), or nil.
    private(set) var failure: String?

    /// Creates a context reading `memory`, and gives it every Swift image's reflection
    /// sections (from the image files, with their addresses in the target). Once `budget` is
    /// spent, every read the library asks for fails, so that it returns quickly.
    convenience init(
        library: MirrorLibrary, memory: ProcessMemory, budget: AnalysisBudget = .unlimited
    ) throws(AttachError) {
        try self.init(library: library, reader: MirrorReader(memory, budget: budget))
    }

    /// Creates a context reading through `reader` (a copy, or this process), and gives it every
    /// Swift image of the reader's images.
    init(library: MirrorLibrary, reader: MirrorReader) throws(AttachError) {
        self.library = library
        self.reader = reader
        Self.installGuard(library: library)
        let opaque = Unmanaged.passUnretained(reader).toOpaque()
        guard let create = library.function("createReflectionContextWithDataLayout"),
            let context = rg_mirror_create(
                create, opaque, MirrorReader.queryLayout, MirrorReader.freeBytes,
                MirrorReader.readBytes, MirrorReader.stringLength, MirrorReader.symbolAddress)
        else { throw .remoteMirrorUnavailable(reason: "no reflection context was created") }
        self.context = context
        for image in reader.images.images where image.hasSwiftMetadata {
            addImage(image)
        }
    }

    deinit {
        if failure == nil, let destroy = library.function("destroyReflectionContext") {
            rg_mirror_destroy(destroy, context)
        }
    }

    /// Installs the guard's signal handlers in front of whatever handles SIGABRT, SIGSEGV and
    /// SIGBUS now (unless they are already there), and gives the calling thread an alternate
    /// signal stack if it has none.
    static func installGuard(library: MirrorLibrary) {
        rg_mirror_guard_install(library.code.lowerBound, library.code.upperBound)
    }

    /// How ``failure`` starts.
    static let failurePrefix = "libswiftRemoteMirror failed on this process's metadata"

    /// The library's entry point `name`, or nil when it is missing or the library already
    /// failed on this context.
    private func entry(_ name: String) -> UnsafeMutableRawPointer? {
        failure == nil ? library.function(name) : nil
    }

    /// `value`, after noting whether the guarded call to `name` that returned it failed.
    private func checked<Value>(_ value: Value, _ name: String) -> Value {
        let signal = rg_mirror_guard_failed_signal()
        if signal != 0, failure == nil {
            let what =
                signal == SIGABRT
                ? "aborted (a fatal assertion of its demangler)" : "faulted (signal \(signal))"
            failure =
                "\(Self.failurePrefix): it \(what) in "
                + "swift_reflection_\(name) on a type built from words the metadata check let "
                + "through; it was not asked again, so the objects of types met after it are "
                + "unnamed and their stored properties not read, and values whose type only it "
                + "could tell were not followed"
        }
        return value
    }

    private func addImage(_ image: LoadedImage) {
        guard let add = entry("addReflectionMappingInfo") else { return }
        func mapping(_ name: String) -> rg_section_mapping {
            guard let section = image.sectionContents(named: name),
                let start = section.bytes.baseAddress
            else { return rg_section_mapping() }
            return rg_section_mapping(
                local_begin: start, local_end: start + section.bytes.count,
                remote_start: section.address, remote_size: UInt(section.bytes.count))
        }
        let info = rg_mapping_info(
            field: mapping("swift5_fieldmd"), associated_types: mapping("swift5_assocty"),
            builtin_types: mapping("swift5_builtin"), capture: mapping("swift5_capture"),
            type_references: mapping("swift5_typeref"),
            reflection_strings: mapping("swift5_reflstr"))
        _ = checked(rg_mirror_add_mapping(add, context, info), "addReflectionMappingInfo")
    }

    /// The type of the metadata at `metadata`, or 0.
    func typeRef(forMetadata metadata: UInt) -> UInt64 {
        guard let function = entry("typeRefForMetadata") else { return 0 }
        return checked(
            rg_mirror_typeref_for_metadata(function, context, metadata), "typeRefForMetadata")
    }

    /// The layout of the class instance or closure context at `object`.
    func layout(ofInstance object: UInt) -> MirrorLayout? {
        guard let info = entry("infoForInstance"), let child = entry("childOfInstance") else {
            return nil
        }
        return layout(
            checked(rg_mirror_info_for_address(info, context, object), "infoForInstance")
        ) {
            checked(rg_mirror_child_of_address(child, context, object, $0), "childOfInstance")
        }
    }

    /// The stored properties a class declares itself (not its superclasses'), at their offsets
    /// in an instance, given the class's metadata.
    func layout(ofClass metadata: UInt) -> MirrorLayout? {
        guard let info = entry("infoForMetadata"), let child = entry("childOfMetadata") else {
            return nil
        }
        return layout(
            checked(rg_mirror_info_for_address(info, context, metadata), "infoForMetadata")
        ) {
            checked(rg_mirror_child_of_address(child, context, metadata, $0), "childOfMetadata")
        }
    }

    /// The layout of a value of type `typeRef`.
    func layout(ofType typeRef: UInt64) -> MirrorLayout? {
        guard typeRef != 0, let info = entry("infoForTypeRef"), let child = entry("childOfTypeRef")
        else { return nil }
        return layout(checked(rg_mirror_info_for_typeref(info, context, typeRef), "infoForTypeRef"))
        {
            checked(rg_mirror_child_of_typeref(child, context, typeRef, $0), "childOfTypeRef")
        }
    }

    private func layout(_ info: rg_typeinfo, child: (UInt32) -> rg_childinfo) -> MirrorLayout? {
        guard let kind = MirrorKind(rawValue: info.kind), kind != .unknown else { return nil }
        var children: [MirrorChild] = []
        for index in 0..<min(info.field_count, 4096) {
            let item = child(index)
            // The library failed on this child: the layout is not to be trusted.
            guard failure == nil else { return nil }
            // Field and case names come from the images' reflection strings: escaped.
            children.append(
                MirrorChild(
                    name: item.name.map { PrintableText.escaped(String(cString: $0)) } ?? "",
                    offset: Int(item.offset),
                    kind: MirrorKind(rawValue: item.kind) ?? .unknown, typeRef: item.typeref))
        }
        return MirrorLayout(
            kind: kind, size: Int(info.size), alignment: Int(info.alignment),
            stride: Int(info.stride), children: children)
    }

    /// The demangled name of `typeRef` (`Swift.Array<App.Entry>`), or nil.
    func name(of typeRef: UInt64) -> String? {
        guard typeRef != 0, let function = entry("copyDemangledNameForTypeRef"),
            let name = checked(
                rg_mirror_copy_name(function, context, typeRef), "copyDemangledNameForTypeRef")
        else { return nil }
        defer { free(name) }
        return String(cString: name)
    }

    /// The mangled name of `typeRef` (`Sa12App.EntryCG`, `ScTyytNeverG`), or nil.
    func mangledName(of typeRef: UInt64) -> String? {
        guard typeRef != 0, let function = entry("copyNameForTypeRef"),
            let name = checked(
                rg_mirror_copy_mangled_name(function, context, typeRef), "copyNameForTypeRef")
        else { return nil }
        defer { free(name) }
        return String(cString: name)
    }

    /// The type named by the mangled name at target address `address` in an image's
    /// `swift5_typeref` section (a field record's type), or 0.
    ///
    /// The name is passed where the context was given that section (in the image file's
    /// view), so that the symbolic references inside it resolve as the mirror's own field
    /// reading resolves them.
    func typeRef(forMangledNameAt address: UInt) -> UInt64 {
        guard let function = entry("typeRefForMangledTypeName"),
            let image = reader.images.image(containing: address),
            let section = image.sectionContents(named: "swift5_typeref"),
            address >= section.address, address - section.address < UInt(section.bytes.count),
            let base = section.bytes.baseAddress
        else { return 0 }
        let start = Int(address - section.address)
        let bytes = UnsafeRawBufferPointer(rebasing: section.bytes[start...])
        guard let length = Self.mangledNameLength(bytes), length > 0 else { return 0 }
        return checked(
            rg_mirror_typeref_for_mangled(
                function, context, (base + start).assumingMemoryBound(to: CChar.self),
                UInt64(length)), "typeRefForMangledTypeName")
    }

    /// The type a mangled name without symbolic references names (`Sa3App5OwnerCG`, read
    /// from a symbol's name), or 0. The mirror takes such a name with the mangling prefix.
    func typeRef(forMangledName name: String) -> UInt64 {
        guard let function = entry("typeRefForMangledTypeName"), !name.isEmpty else { return 0 }
        var bytes = Array((name.hasPrefix("$s") ? name : "$s" + name).utf8CString)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return 0 }
            return checked(
                rg_mirror_typeref_for_mangled(function, context, start, UInt64(buffer.count - 1)),
                "typeRefForMangledTypeName")
        }
    }

    /// The length of the mangled name at the start of `bytes`: up to its terminating zero,
    /// skipping the 4-byte offsets of relative symbolic references (markers 1–0x17) and the
    /// 8-byte pointers of absolute ones (0x18–0x1F), which may hold zeros.
    static func mangledNameLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case 0: return index
            case 0x01...0x17: index += 5
            case 0x18...0x1F: index += 9
            default: index += 1
            }
        }
        return nil
    }

    /// The generic arguments of `typeRef`.
    func genericArguments(of typeRef: UInt64) -> [UInt64] {
        guard typeRef != 0, let count = entry("genericArgumentCountOfTypeRef"),
            let argument = entry("genericArgumentOfTypeRef")
        else { return [] }
        let total = min(
            checked(rg_mirror_generic_count(count, typeRef), "genericArgumentCountOfTypeRef"), 16)
        let arguments = (0..<total).map {
            checked(rg_mirror_generic_argument(argument, typeRef, $0), "genericArgumentOfTypeRef")
        }
        return failure == nil ? arguments : []
    }

    /// The type inside the existential of type `typeRef` stored at `address`, and where its
    /// value starts (the container itself when the value fits inline).
    func projectExistential(at address: UInt, typeRef: UInt64) -> (UInt64, UInt)? {
        guard let function = entry("projectExistential") else { return nil }
        var instance: rg_typeref = 0
        var start: rg_address = 0
        guard
            checked(
                rg_mirror_project_existential(
                    function, context, UInt64(address), typeRef, &instance, &start),
                "projectExistential") != 0
        else { return nil }
        return (instance, UInt(start))
    }

    // MARK: Tasks and actors (the calls through the door; what they mean:
    // RemoteMirror+Tasks.swift)

    /// Whether the library has the task and actor entry points.
    var readsTasks: Bool { library.readsTasks }

    /// `swift_reflection_asyncTaskInfo` for the task at `task`, or the library's error. The
    /// arrays it returns belong to the context until its next call: they are copied here.
    func taskInfo(at task: UInt) -> Result<MirrorTaskInfo, MirrorTaskError> {
        guard let function = entry("asyncTaskInfo") else {
            return .failure(MirrorTaskError(reason: failure ?? "the library cannot read tasks"))
        }
        let info = checked(rg_mirror_task_info(function, context, UInt64(task)), "asyncTaskInfo")
        if let error = info.error {
            return .failure(MirrorTaskError(reason: String(cString: error)))
        }
        func addresses(_ start: UnsafePointer<rg_address>?, _ count: UInt32) -> [UInt] {
            guard let start else { return [] }
            return UnsafeBufferPointer(start: start, count: Int(min(count, 4096))).map { UInt($0) }
        }
        return .success(
            MirrorTaskInfo(
                id: info.id, enqueuePriority: Int(info.enqueue_priority),
                isChildTask: info.is_child_task, isFuture: info.is_future,
                isGroupChildTask: info.is_group_child_task, isAsyncLetTask: info.is_async_let_task,
                isCancelled: info.is_cancelled,
                isRunning: info.has_is_running ? info.is_running : nil,
                isEnqueued: info.is_enqueued, resumeFunction: UInt(info.run_job),
                allocatorSlab: UInt(info.allocator_slab),
                children: addresses(info.child_tasks, info.child_task_count),
                backtrace: addresses(info.backtrace, info.backtrace_count)))
    }

    /// `swift_reflection_asyncTaskSlabAllocations`: the used ranges of the task allocator's
    /// slab at `slab` (where async frames live), and the next slab (0 at the last); nil when
    /// it cannot be read.
    func slabAllocations(at slab: UInt) -> (next: UInt, used: [Range<UInt>])? {
        guard let function = entry("asyncTaskSlabAllocations") else { return nil }
        let slabs = checked(
            rg_mirror_slab_allocations(function, context, UInt64(slab)), "asyncTaskSlabAllocations")
        guard slabs.error == nil else { return nil }
        var used: [Range<UInt>] = []
        if let chunks = slabs.chunks {
            for chunk in UnsafeBufferPointer(start: chunks, count: Int(min(slabs.chunk_count, 64)))
            where chunk.length > 0 && chunk.start <= UInt64.max - UInt64(chunk.length) {
                used.append(UInt(chunk.start)..<UInt(chunk.start + UInt64(chunk.length)))
            }
        }
        return (UInt(slabs.next_slab), used)
    }

    /// `swift_reflection_actorInfo` for the default actor at `actor`, or nil.
    func actorInfo(at actor: UInt) -> MirrorActorInfo? {
        guard let function = entry("actorInfo") else { return nil }
        let info = checked(rg_mirror_actor_info(function, context, UInt64(actor)), "actorInfo")
        guard info.error == nil else { return nil }
        return MirrorActorInfo(state: info.state, firstJob: UInt(info.first_job))
    }

    /// `swift_reflection_nextJob`: the job after `job` in an actor's queue, or 0.
    func nextJob(after job: UInt) -> UInt {
        guard let function = entry("nextJob") else { return 0 }
        return UInt(checked(rg_mirror_next_job(function, context, UInt64(job)), "nextJob"))
    }

    /// The case index of the enum of type `typeRef` stored at `address`.
    func enumCase(at address: UInt, typeRef: UInt64) -> Int? {
        guard let function = entry("projectEnumValue") else { return nil }
        var index: Int32 = -1
        guard
            checked(
                rg_mirror_project_enum(function, context, UInt64(address), typeRef, &index),
                "projectEnumValue") != 0, index >= 0
        else { return nil }
        return Int(index)
    }
}
