import Logging

/// Somewhere leak reports go when ``LeakWatcher/check()`` finds them.
///
/// A sink receives a report the first time its fingerprint is seen in the run
/// (``LeakReport/occurrences`` is 1) and again each time it recurs, with the count raised, so
/// it can update what it wrote. Sinks are called outside the watcher's lock, on the thread
/// that called ``LeakWatcher/check()``.
public protocol LeakReportSink: Sendable {
    /// Takes a report.
    ///
    /// - Parameter report: A leak or zombie report; `occurrences` counts how often its
    ///   fingerprint was seen so far.
    func receive(_ report: LeakReport)
}

/// A sink that logs each new leak's text report through swift-log.
///
/// New leaks are logged at the configured level (`warning` by default) with the fingerprint,
/// verdict and type as metadata; recurrences are logged at `debug`.
///
/// ```swift
/// let watcher = LeakWatcher(sinks: [LoggingSink(logger: Logger(label: "leaks"))])
/// ```
public struct LoggingSink: LeakReportSink {
    /// The logger written to.
    public let logger: Logger
    /// The level of a new leak's message.
    public let level: Logger.Level

    /// Creates a logging sink.
    ///
    /// - Parameters:
    ///   - logger: The logger to write to.
    ///   - level: The level of a new leak's message.
    public init(logger: Logger, level: Logger.Level = .warning) {
        self.logger = logger
        self.level = level
    }

    /// Logs a new leak's text at the sink's level, with its fingerprint, verdict, type and
    /// occurrences as metadata; a recurrence is a one-line `debug` message.
    ///
    /// - Parameter report: The report.
    public func receive(_ report: LeakReport) {
        let metadata: Logger.Metadata = [
            "leak.fingerprint": "\(report.fingerprint)",
            "leak.verdict": "\(report.verdict.rawValue)",
            "leak.type": "\(report.subject.typeName)",
            "leak.occurrences": "\(report.occurrences)",
        ]
        if report.occurrences == 1 {
            logger.log(level: level, "\(report.text)", metadata: metadata)
        } else {
            logger.debug(
                "leak \(report.fingerprint) seen again (\(report.occurrences)×)",
                metadata: metadata)
        }
    }
}
