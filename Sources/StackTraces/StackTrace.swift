/// The return addresses of one thread's stack, captured cheaply and symbolicated later.
///
/// A `StackTrace` holds nothing but addresses: capturing one walks the stack with libunwind's
/// `unw_backtrace`, looks up no symbol, builds no string and allocates at most once. Turn it into
/// readable frames only when a report is printed, with ``symbolicated()`` or
/// ``frames(excludingModules:includingSystemFrames:)``.
///
/// ```swift
/// let trace = StackTrace.capture()          // about half a microsecond
/// // … much later, when a leak is reported:
/// for frame in trace.frames(excludingModules: ["RetainGraph"]) {
///     print(frame)
/// }
/// ```
///
/// Inside a Swift concurrency `Task`, libunwind sees the physical stack only (the current
/// partial function and the executor), not the logical chain of `await`ing callers.
public struct StackTrace: Sendable, Hashable {
    /// The default number of frames a capture keeps: 32.
    public static let defaultDepth = 32
    /// The largest depth a capture honours: 256. Larger requests are clamped to it.
    public static let maximumDepth = 256
    /// The deepest frame a capture ever examines, counting skipped frames: 512.
    ///
    /// A capture whose `skipping` count reaches past this limit returns the frames that remain
    /// within it, possibly none.
    public static let examinedFrameLimit = 512

    /// Return addresses, innermost call first.
    public let addresses: [UInt]

    /// Creates a trace from raw return addresses, innermost first.
    ///
    /// - Parameter addresses: Return addresses, such as those of an earlier capture.
    public init(addresses: [UInt]) { self.addresses = addresses }

    /// A trace with no frames.
    public static let empty = StackTrace(addresses: [])

    /// Whether the trace has no frames.
    public var isEmpty: Bool { addresses.isEmpty }

    /// Captures the return addresses of the calling thread's stack, innermost first.
    ///
    /// The trace starts at the function that called `capture`: the library's own frames are never
    /// part of it. Pass `skipping` to leave out frames of your own as well, for example `1` when
    /// you capture from inside a helper and want the trace to start at the helper's caller.
    ///
    /// Only addresses are stored; no symbol is looked up and no string is built. The addresses
    /// are first written into a buffer on the stack (`withUnsafeTemporaryAllocation`) and then
    /// copied into one array, the only allocation.
    ///
    /// Out-of-range arguments never trap:
    /// - `depth` of 0 or less returns ``empty`` without unwinding and without allocating.
    /// - `depth` above ``maximumDepth`` (256) is clamped to it.
    /// - a negative `skipping` is treated as 0.
    /// - frames deeper than ``examinedFrameLimit`` (512, counting skipped ones) are never
    ///   examined, so a huge `skipping` yields a short or empty trace.
    ///
    /// The corresponding C function is libunwind's `unw_backtrace`; `errno` is preserved.
    /// Safe to call from any thread, but not from a signal handler.
    ///
    /// - Parameters:
    ///   - depth: The most frames to keep. Defaults to ``defaultDepth`` (32).
    ///   - skipping: How many of the caller's innermost frames to leave out. Defaults to 0.
    /// - Returns: The trace, which may hold fewer than `depth` frames when the stack is shallower.
    /// - Complexity: O(`depth` + `skipping`). About 12 ns per frame walked; a thread's first
    ///   capture costs 0.2–1.4 ms more while libunwind sets up its per-thread cache.
    @inline(never)
    public static func capture(depth: Int = defaultDepth, skipping: Int = 0) -> StackTrace {
        collect(depth: depth, skipping: skipping, ownFrames: OwnFrames.count)
    }

    /// The capture path shared by ``capture(depth:skipping:)``,
    /// ``captureFromFramePointers(depth:skipping:)`` and the one-time measurements of the
    /// library's own frames, so that each has exactly the same frames as its measurement.
    @inline(__always)
    static func collect(
        depth: Int, skipping: Int, ownFrames: Int, framePointers: Bool = false
    ) -> StackTrace {
        let kept = min(depth, maximumDepth)
        guard kept > 0 else { return .empty }
        let skipped = ownFrames + min(max(skipping, 0), examinedFrameLimit)
        let capacity = min(skipped + kept, examinedFrameLimit + ownFrames)
        guard capacity > skipped else { return .empty }
        return withUnsafeTemporaryAllocation(
            of: UnsafeMutableRawPointer?.self,
            capacity: capacity
        ) { buffer in
            let written =
                framePointers
                ? Unwinder.framePointerBacktrace(into: buffer) : Unwinder.backtrace(into: buffer)
            guard written > skipped else { return .empty }
            let count = written - skipped
            let addresses = [UInt](unsafeUninitializedCapacity: count) { storage, initialized in
                for index in 0..<count {
                    storage.initializeElement(
                        at: index,
                        to: UInt(bitPattern: buffer[skipped + index])
                    )
                }
                initialized = count
            }
            return StackTrace(addresses: addresses)
        }
    }
}

extension StackTrace: CustomStringConvertible {
    /// The raw addresses in hexadecimal, innermost first; symbolicate for names.
    public var description: String {
        let hex = addresses.map { "0x" + String($0, radix: 16) }
        return "StackTrace(\(addresses.count) frames: \(hex.joined(separator: " ")))"
    }
}

/// How many frames the library itself adds on top of a ``StackTrace/capture(depth:skipping:)``
/// caller's frame, measured once per process.
///
/// The count differs between debug builds (closure and thunk frames) and release builds
/// (everything inlined), so it is measured rather than assumed: a probe recurses through one call
/// site three times and then captures. The first pair of equal adjacent addresses is that call
/// site; the address just before it is the probe's own call into the capture path, and everything
/// before that belongs to the library.
enum OwnFrames {
    /// The measured count, or 1 (the `capture` function's own frame) if measuring failed.
    static let count: Int = measure(framePointers: false)
    /// The same for ``StackTrace/captureFromFramePointers(depth:skipping:)``.
    static let framePointerCount: Int = measure(framePointers: true)

    static func measure(framePointers: Bool) -> Int {
        let addresses = probe(3, framePointers: framePointers)
        guard addresses.count >= 3 else { return 1 }
        for index in 1..<(addresses.count - 1) where addresses[index] == addresses[index + 1] {
            return index - 1
        }
        return 1
    }

    /// Recurses through a single call site, so its return address repeats in the trace.
    @inline(never) @_optimize(none)
    static func probe(_ level: Int, framePointers: Bool) -> [UInt] {
        if level <= 0 {
            return framePointers
                ? framePointerCalibrationCapture().addresses : calibrationCapture().addresses
        }
        let inner = probe(level - 1, framePointers: framePointers)
        return inner
    }

    /// The twin of ``StackTrace/capture(depth:skipping:)`` that skips nothing.
    @inline(never)
    static func calibrationCapture() -> StackTrace {
        StackTrace.collect(depth: 24, skipping: 0, ownFrames: 0)
    }

    /// The twin of ``StackTrace/captureFromFramePointers(depth:skipping:)`` that skips nothing.
    @inline(never)
    static func framePointerCalibrationCapture() -> StackTrace {
        StackTrace.collect(depth: 24, skipping: 0, ownFrames: 0, framePointers: true)
    }
}
