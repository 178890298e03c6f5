/// Lazy symbolication: names, images and source locations, looked up when a report is printed.
extension StackTrace {
    /// The trace's frames with function names, images and source locations.
    ///
    /// Each address is looked up once per process and cached, thread-safely; later lookups are
    /// dictionary look-ups. New addresses are looked up in one batch per image: by
    /// `llvm-symbolizer` (the toolchain's, started once per batch with `posix_spawn`) when the
    /// image carries DWARF, else through the
    /// toolchain's `Runtime` module, which also takes over wherever the symbolizer is missing,
    /// fails or times out; an address neither names keeps its image and offset. Names are
    /// demangled with the runtime's `swift_demangle`. Where the compiler inlined calls, one
    /// address yields several frames, innermost first, marked ``StackFrame/isInlined``.
    ///
    /// Environment variables choose the route: `RETAINGRAPH_SYMBOLICATION=runtime` uses the
    /// `Runtime` module only, `=symbolizer` sends every batch to the symbolizer;
    /// `RETAINGRAPH_SYMBOLIZER` is the absolute path of the `llvm-symbolizer` to run (one that
    /// does not exist means none); `RETAINGRAPH_SYMBOLIZER_TIMEOUT` is the seconds one run may take (30).
    /// They are read once, at the process's first symbolication.
    ///
    /// ```swift
    /// let frames = StackTrace.capture().symbolicated()
    /// print(frames[0].function ?? "?")   // the function that called capture()
    /// ```
    ///
    /// - Returns: At least one frame per address, innermost first.
    /// - Complexity: O(*n*) for a trace whose addresses are all cached. New addresses of a
    ///   binary with debug information: one symbolizer run per image, 15–35 ms, plus well
    ///   under a millisecond per address (the `Runtime` module would take 3–7 ms per address of
    ///   an 8 MB binary, more in a larger one, after 50–100 ms for the image's first); new
    ///   addresses of a stripped library: 30–300 µs each. Plus 0.4 ms to read the image list
    ///   the first time.
    public func symbolicated() -> [StackFrame] {
        guard !addresses.isEmpty else { return [] }
        return Symbolicator.shared.frames(for: addresses).flatMap { $0 }
    }

    /// The frames a person wants to read: symbolicated, without the named modules' frames and,
    /// unless asked for, without thunks and system frames.
    ///
    /// A frame is left out when it belongs to one of `modules` (its Swift module, compared
    /// exactly, or for C frames its image; see ``StackFrame/belongs(toAnyOf:)``), when it is a
    /// compiler-generated thunk, or when it belongs to the system (program entry, toolchain
    /// libraries, Foundation, Dispatch, the C library, test runners) and `includingSystemFrames`
    /// is `false`.
    ///
    /// ```swift
    /// trace.frames(excludingModules: ["RetainGraph", "TrackedTimers", "StackTraces"])
    /// ```
    ///
    /// - Parameters:
    ///   - modules: Module names whose frames to leave out.
    ///   - includingSystemFrames: Whether to keep thunks and system frames. Defaults to `false`.
    /// - Returns: The remaining frames, innermost first.
    /// - Complexity: That of ``symbolicated()``, plus O(*n* × *m*) for *m* modules.
    public func frames(
        excludingModules modules: some Collection<String> = [String](),
        includingSystemFrames: Bool = false
    ) -> [StackFrame] {
        symbolicated().filter { frame in
            if frame.belongs(toAnyOf: modules) { return false }
            if !includingSystemFrames, frame.isThunk || frame.isSystem { return false }
            return true
        }
    }

    /// The trace as report lines, one per frame, numbered from 0.
    ///
    /// Each line is ``StackFrame/formatted(index:)``; filtering is that of
    /// ``frames(excludingModules:includingSystemFrames:)``.
    ///
    /// - Parameters:
    ///   - modules: Module names whose frames to leave out.
    ///   - includingSystemFrames: Whether to keep thunks and system frames. Defaults to `false`.
    /// - Returns: The lines joined by newlines, without a trailing newline; empty for no frames.
    public func formatted(
        excludingModules modules: some Collection<String> = [String](),
        includingSystemFrames: Bool = false
    ) -> String {
        frames(excludingModules: modules, includingSystemFrames: includingSystemFrames)
            .enumerated()
            .map { $0.element.formatted(index: $0.offset) }
            .joined(separator: "\n")
    }
}
