import RetainGraphUtilities

extension HeapSnapshot {
    /// Reads the live Swift objects, references and holders of the process a core file holds.
    ///
    /// The same analysis as an attach's, over the core's memory: glibc's heaps walked, each
    /// block's first word checked against the Swift metadata of the process's images, references
    /// read with the layouts the remote mirror describes, holders from global variables,
    /// thread stacks and registers.
    ///
    /// ```swift
    /// let heap = try HeapSnapshot(try ProcessCore(contentsOfFile: "core.4242"))
    /// print(heap.topText(limit: 10))
    /// ```
    ///
    /// - Parameters:
    ///   - core: The core, read with ``ProcessCore/init(contentsOfFile:sysroot:)``.
    ///   - remoteMirrorPath: The `libswiftRemoteMirror.so` of the process's toolchain; nil to
    ///     find one, whose Swift version must then be the process's.
    /// - Throws: ``CoreFileError/runtimeMismatch(path:target:runtime:mirror:library:)`` when the
    ///   process ran another Swift runtime than the library found reads; an ``AttachError``
    ///   (``AttachError/remoteMirrorUnavailable(reason:)``) when no library loads,
    ///   ``AttachError/gaveUp(processID:reason:)`` when reading it exceeds the attach's default
    ///   time and memory limits.
    /// - Complexity: O(*b* + *r*) for *b* heap blocks holding *r* references.
    public init(_ core: ProcessCore, remoteMirrorPath: String? = nil) throws {
        let library = try MirrorLibrary.load(path: remoteMirrorPath)
        if remoteMirrorPath == nil, let mirror = library.runtimeVersion,
            let file = core.runtimeFile, let target = RuntimeVersion(file: file),
            target != mirror
        {
            throw CoreFileError.runtimeMismatch(
                path: core.path, target: target.description,
                runtime: PrintableText.escaped(core.runtimePath ?? "its executable"),
                mirror: mirror.description, library: library.path)
        }
        // The attach's default limits: a core is as untrusted as a live target's memory.
        try self.init(
            core.memory, stoppedFor: nil, library: library,
            budget: AttachOptions().analysisBudget(copiedBytes: core.memory.copiedBytes))
    }
}
