import RetainGraphUtilities
import StackTraces

extension CreationSite {
    /// The modules whose frames are never the line a user would change: the Swift runtime and
    /// standard library, Foundation and Dispatch, and the test frameworks that call tests.
    ///
    /// Frames of their images (`libswiftCore.so`, `libFoundation.so`, `libdispatch.so`, …) are
    /// system frames (``/StackTraces/StackFrame/isSystem``) and are left out as well.
    public static let runtimeModules: Set<String> = TypeNames.toolchainModules

    /// The frame of the creation stack that a user would change: the first, from the
    /// innermost, that lies outside `modules` and the runtime and has a source file and line.
    ///
    /// The rule, applied to the symbolicated frames (inlined calls included, innermost first):
    /// 1. Leave out the frames of `modules`, of ``runtimeModules``, system frames (the
    ///    toolchain's and the C library's images) and compiler-generated thunks.
    /// 2. Of the rest, the first frame with `file:line` that is not an initializer
    ///    (`__allocating_init` or `init`); failing that, the first with `file:line`; failing
    ///    that, the first at all (a line-less `__allocating_init`, for a binary without debug
    ///    information).
    ///
    /// So when a test's line calls a library's function that calls another that calls an
    /// initializer, passing the library's module name yields the test's line; a frame with a
    /// source line always wins over the line-less allocating initializer. The answer depends
    /// only on the stack the census recorded and on the binary, so the same program gives the
    /// same frame on every run.
    ///
    /// ```swift
    /// let site = HeapCensus.creationSite(of: session)
    /// let frame = site?.userFrame(excludingModules: ["SessionKit"])
    /// print(frame.map { "\($0.file ?? "?"):\($0.line ?? 0)" } ?? "?")  // "LoginTests.swift:31"
    /// ```
    ///
    /// - Parameter modules: Module names whose frames are never the answer, such as the
    ///   libraries under test or a leak checker's own (`"MyLibrary"`; an image name such as
    ///   `libMyLibrary.so` matches `"MyLibrary"` for frames without a Swift module).
    /// - Returns: The frame, or nil when every frame is in `modules` or the runtime.
    /// - Complexity: That of ``frames()``, plus O(*n*) for *n* frames.
    public func userFrame(excludingModules modules: Set<String>) -> StackFrame? {
        let candidates = frames().filter { frame in
            guard !frame.isThunk, !frame.isSystem else { return false }
            return !frame.belongs(toAnyOf: modules) && !frame.belongs(toAnyOf: Self.runtimeModules)
        }
        let located = candidates.filter { $0.file != nil && ($0.line ?? 0) > 0 }
        return located.first { !Self.isInitializer($0.function) } ?? located.first
            ?? candidates.first
    }

    /// `File.swift:line` of ``userFrame(excludingModules:)``, else its function or address;
    /// nil when every frame is in `modules` or the runtime.
    ///
    /// - Parameter modules: Module names whose frames are never the answer.
    /// - Returns: The location, such as `"LoginTests.swift:31"`.
    public func userLocation(excludingModules modules: Set<String>) -> String? {
        userFrame(excludingModules: modules).map(Self.location(of:))
    }
}
