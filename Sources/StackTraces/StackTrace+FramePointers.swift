extension StackTrace {
    /// Captures the return addresses of the calling thread's stack from frame pointers,
    /// innermost first, without libunwind.
    ///
    /// The same trace as ``capture(depth:skipping:)`` where every function keeps a frame
    /// pointer (Swift code and the Swift runtime on Linux x86_64 do), at a fraction of the cost
    /// and with no lock: the walk reads each frame record (the caller's frame pointer, then the
    /// return address) only if it lies above the previous one and inside the thread's stack,
    /// so it never faults, and stops at the first function built without a frame pointer (the
    /// C library's, for example): callers above such a function are not in the trace.
    ///
    /// Use it where libunwind must not run: libunwind takes a lock of its own and, under it, the
    /// loader's (`dl_iterate_phdr`), so unwinding with it from code that may hold the loader's
    /// lock (a `dl_iterate_phdr` callback, an allocation made inside one) can deadlock with a
    /// thread that unwinds at the same time. The walk itself allocates nothing; the returned
    /// trace is one array.
    ///
    /// ```swift
    /// let trace = StackTrace.captureFromFramePointers(depth: 16)
    /// ```
    ///
    /// Out-of-range arguments behave as in ``capture(depth:skipping:)``. On architectures other
    /// than x86_64 the trace is empty: use ``capture(depth:skipping:)`` there.
    ///
    /// - Parameters:
    ///   - depth: The most frames to keep. Defaults to ``defaultDepth`` (32).
    ///   - skipping: How many of the caller's innermost frames to leave out. Defaults to 0.
    /// - Returns: The trace, starting at the function that called this one.
    /// - Complexity: O(`depth` + `skipping`): two loads and two compares per frame, and one
    ///   allocation for the result.
    @inline(never)
    public static func captureFromFramePointers(
        depth: Int = defaultDepth, skipping: Int = 0
    ) -> StackTrace {
        collect(
            depth: depth, skipping: skipping, ownFrames: OwnFrames.framePointerCount,
            framePointers: true)
    }
}
