// The only Swift file that imports the C door. Everything libunwind-specific, and the
// frame-pointer walk, stay here.
internal import CLibunwind

/// Reads the calling thread's return addresses with libunwind.
///
/// The corresponding C function is `unw_backtrace` (local unwinding only), reached through the
/// `clibunwind_backtrace` wrapper in `Sources/CLibunwind/shim.h`, which also saves and restores
/// `errno` around the call.
///
/// Linking libunwind makes its `backtrace` and `_Unwind_*` symbols take precedence over glibc's
/// and libgcc's for the whole process; libunwind implements the same ABI, so C++ exceptions and
/// glibc `backtrace()` keep working, through libunwind.
enum Unwinder {
    /// Fills `buffer` with return addresses of the calling thread, innermost first.
    ///
    /// The first addresses belong to the caller's own frames (this function is usually inlined,
    /// but callers must not rely on it: ``StackTrace`` measures its own frame count once at run
    /// time and skips that many).
    ///
    /// - Parameter buffer: Where to store the addresses; its count is the capacity.
    /// - Returns: How many leading elements of `buffer` were written, between 0 and
    ///   `buffer.count`.
    /// - Complexity: O(*n*) in the number of frames walked; about 12 ns per frame after the
    ///   thread's first call, which costs 0.2–1.4 ms while libunwind sets up its per-thread cache.
    @inline(__always)
    static func backtrace(into buffer: UnsafeMutableBufferPointer<UnsafeMutableRawPointer?>) -> Int
    {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let written = clibunwind_backtrace(base, Int32(clamping: buffer.count))
        return min(max(Int(written), 0), buffer.count)
    }

    /// Fills `buffer` with return addresses of the calling thread read from frame pointers,
    /// innermost first: no libunwind, no lock, no allocation (see `Sources/CLibunwind/shim.h`).
    ///
    /// Stops at the first function built without frame pointers (its callers are not seen);
    /// stores nothing on architectures other than x86_64.
    ///
    /// - Parameter buffer: Where to store the addresses; its count is the capacity.
    /// - Returns: How many leading elements of `buffer` were written, between 0 and
    ///   `buffer.count`.
    /// - Complexity: O(*n*) in the number of frames walked: two loads and two compares each.
    @inline(__always)
    static func framePointerBacktrace(
        into buffer: UnsafeMutableBufferPointer<UnsafeMutableRawPointer?>
    ) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let written = clibunwind_frame_pointer_backtrace(base, Int32(clamping: buffer.count))
        return min(max(Int(written), 0), buffer.count)
    }
}
