/// How an attach treats its target: how long it may keep it stopped, and when to give up.
///
/// The defaults suit a person at a terminal: at most 5 s stopped (a process with a million
/// live objects is stopped for well under a second: the stop only copies memory; everything
/// else happens once the target runs again).
///
/// ```swift
/// var options = AttachOptions()
/// options.maximumStop = .milliseconds(500)   // a latency-sensitive server
/// let heap = try HeapSnapshot.capture(processID: pid, options: options)
/// ```
public struct AttachOptions: Sendable {
    /// The longest the target may stay stopped, from the first thread stopped to the last one
    /// let go. An attach that would take longer lets the target go and throws
    /// ``AttachError/stopLimitExceeded(processID:limit:)``. Values below 10 ms count as 10 ms.
    public var maximumStop: Duration

    /// Asked between the steps of a stop (each thread stopped, each batch of memory copied):
    /// when it returns true, the target is let go at once and the attach throws
    /// ``AttachError/cancelled(processID:)``. The command-line tool answers true after SIGINT.
    /// Called on the attaching thread; it must not block.
    public var isCancelled: @Sendable () -> Bool

    /// Where `libswiftRemoteMirror.so` is, or nil to find it: bundled with this program (the
    /// portable archive's `lib/`, or the executable's folder), then next to the Swift runtime
    /// this program uses, then in `/opt/swift` and `/usr`.
    ///
    /// With nil, an attach first checks that the target runs the Swift version the library
    /// found reads, and refuses otherwise
    /// (``AttachError/runtimeMismatch(processID:target:runtime:mirror:library:)``). A path
    /// given here is trusted: the library of the target's toolchain, used unchecked.
    public var remoteMirrorPath: String?

    /// The most bytes of writable memory one attach copies (a guard against a target whose
    /// address space is mostly reserved memory); larger mappings are read in part. 8 GiB by
    /// default.
    public var maximumCopy: Int

    /// Creates options.
    ///
    /// - Parameters:
    ///   - maximumStop: The longest the target may stay stopped (5 s by default).
    ///   - isCancelled: Polled while the target is stopped; true lets it go and cancels.
    ///   - remoteMirrorPath: `libswiftRemoteMirror.so`, or nil to find the toolchain's.
    ///   - maximumCopy: The most bytes of writable memory copied.
    public init(
        maximumStop: Duration = .seconds(5),
        isCancelled: @escaping @Sendable () -> Bool = { false },
        remoteMirrorPath: String? = nil,
        maximumCopy: Int = 8 << 30
    ) {
        self.maximumStop = max(maximumStop, .milliseconds(10))
        self.isCancelled = isCancelled
        self.remoteMirrorPath = remoteMirrorPath
        self.maximumCopy = max(maximumCopy, 1 << 20)
    }
}
