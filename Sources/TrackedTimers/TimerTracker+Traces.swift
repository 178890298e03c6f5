import RetainGraph
import StackTraces
import Synchronization

extension TimerTracker {
    /// Makes the tracker of a timer or proxy being initialised, with a creation stack trace
    /// when ``TimerTracking/capturesCreationTraces`` is on; the object calls `attach(identifier:type:)` at
    /// the end of its initialiser.
    ///
    /// - Parameters:
    ///   - kind: `.timer` or `.proxy`.
    ///   - label: A label for reports.
    ///   - timer: Initial timer state, for timers.
    ///   - graph: The graph; nothing is recorded (not even a trace captured) when it is disabled.
    ///   - traceSkipping: Frames of the library's own to drop from the creation trace.
    convenience init(
        kind: NodeKind, label: String?, timer: TimerInfo?, graph: LiveGraph,
        traceSkipping: Int = 1
    ) {
        let trace =
            graph.isEnabled && TimerTracking.capturesCreationTraces
            ? StackTrace.capture(skipping: traceSkipping + 1) : nil
        self.init(kind: kind, label: label, timer: timer, creationTrace: trace, graph: graph)
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
