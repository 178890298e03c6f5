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

    /// The longest the analysis of the copy may take, once the target runs again (5 minutes by
    /// default; a million objects take seconds). A heap that would take longer (looping lists,
    /// implausible counts planted by a corrupted or hostile target) ends the attach with
    /// ``AttachError/gaveUp(processID:reason:)``. Values below 100 ms count as 100 ms.
    public var maximumAnalysis: Duration

    /// The most memory the analysis may allocate from counts and sizes read from the target
    /// (the scan's columns, sized from every object's layout and element counts), or nil for
    /// twice the bytes copied plus 1 GiB. An analysis that would need more ends the attach with
    /// ``AttachError/gaveUp(processID:reason:)``.
    public var maximumAnalysisMemory: Int?

    /// Creates options.
    ///
    /// - Parameters:
    ///   - maximumStop: The longest the target may stay stopped (5 s by default).
    ///   - isCancelled: Polled while the target is stopped; true lets it go and cancels.
    ///   - remoteMirrorPath: `libswiftRemoteMirror.so`, or nil to find the toolchain's.
    ///   - maximumCopy: The most bytes of writable memory copied.
    ///   - maximumAnalysis: The longest the analysis of the copy may take.
    ///   - maximumAnalysisMemory: The most memory the analysis may allocate from the target's
    ///     counts, or nil for twice the bytes copied plus 1 GiB.
    public init(
        maximumStop: Duration = .seconds(5),
        isCancelled: @escaping @Sendable () -> Bool = { false },
        remoteMirrorPath: String? = nil,
        maximumCopy: Int = 8 << 30,
        maximumAnalysis: Duration = .seconds(300),
        maximumAnalysisMemory: Int? = nil
    ) {
        self.maximumStop = max(maximumStop, .milliseconds(10))
        self.isCancelled = isCancelled
        self.remoteMirrorPath = remoteMirrorPath
        self.maximumCopy = max(maximumCopy, 1 << 20)
        self.maximumAnalysis = max(maximumAnalysis, .milliseconds(100))
        self.maximumAnalysisMemory = maximumAnalysisMemory.map { max($0, 1 << 20) }
    }

    /// The analysis budget of these options for `copiedBytes` bytes copied.
    func analysisBudget(copiedBytes: Int) -> AnalysisBudget {
        AnalysisBudget(
            time: maximumAnalysis,
            memory: maximumAnalysisMemory
                ?? copiedBytes.multipliedReportingOverflow(by: 2)
                .partialValue.addingReportingOverflow(1 << 30).partialValue)
    }
}
