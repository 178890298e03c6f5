import RetainGraph
import StackTraces
import Synchronization

extension TimerTracker {
    /// Makes the tracker of a timer or proxy being initialised, with a creation stack trace
    /// when ``TimerTracking/capturesCreationTraces`` is on (without the library's own
    /// `traceSkipping` frames), or `nil` on a disabled graph; the object calls
    /// `attach(identifier:type:)` at the end of its initialiser.
    ///
    /// The label and graph are borrowed: a timer on a disabled graph keeps neither, and an
    /// initialiser's parameters are otherwise retained by the caller and released here.
    convenience init?(
        kind: NodeKind, label: borrowing String?, timer: TimerInfo?, graph: borrowing LiveGraph,
        traceSkipping: Int
    ) {
        guard graph.isEnabled else { return nil }
        let trace =
            TimerTracking.capturesCreationTraces
            ? StackTrace.capture(skipping: traceSkipping + 1) : nil
        self.init(
            kind: kind, label: copy label, timer: timer, creationTrace: trace, graph: copy graph)
    }
}

/// Process-wide switches for the instrumented timers' tracking.
///
/// Whether anything is recorded at all is ``/RetainGraph/LiveGraph/isEnabled`` of the graph a timer records
/// into (``/RetainGraph/LiveGraph/shared`` by default: on in debug builds, off in release builds, overridable
/// with `RETAINGRAPH_TRACKING`).
public enum TimerTracking {
    private static let traces = Atomic<Bool>(true)

    /// Whether timers and proxies capture a stack trace where they are created (default `true`).
    ///
    /// A capture costs about half a microsecond at the default depth; symbolication happens
    /// only when a report is printed.
    public static var capturesCreationTraces: Bool {
        get { traces.load(ordering: .relaxed) }
        set { traces.store(newValue, ordering: .relaxed) }
    }
}
