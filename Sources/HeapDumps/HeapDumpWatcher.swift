/// When a watcher thread dumps the process: on a signal, when resident memory passes a
/// threshold, at most so many times, into which directory.
///
/// Read from the environment by ``fromEnvironment()`` (and at start-up, when the program
/// links HeapDumps or preloads `libHeapDumpsPreload.so`):
///
/// | variable | meaning | default |
/// | --- | --- | --- |
/// | `RETAINGRAPH_DUMP_ON_RSS` | dump when resident memory reaches this (`2GiB`, `512MiB`), then each time it passes 1.5 times the last dump's | off |
/// | `RETAINGRAPH_DUMP_SIGNAL` | `SIGUSR2` (or `SIGUSR1`): dump when the process gets it | off |
/// | `RETAINGRAPH_DUMP_LIMIT` | the most dumps | 2 |
/// | `RETAINGRAPH_DUMP_DIR` | where dumps go, as `core.COMMAND.PID.N` | `.` |
/// | `RETAINGRAPH_DUMP_POLL_MS` | how often resident memory is read | 1000 |
public struct HeapDumpConfiguration: Sendable, Equatable {
    /// Where dumps go.
    public var directory: String
    /// Dump when resident memory reaches this many bytes (nil: never).
    public var residentThreshold: Int?
    /// The most dumps.
    public var limit: Int
    /// The signal that asks for a dump (`SIGUSR2`), or nil.
    public var signal: Int32?
    /// How often resident memory is read.
    public var pollInterval: Duration

    /// Creates settings.
    ///
    /// - Parameters:
    ///   - directory: Where dumps go.
    ///   - residentThreshold: Resident bytes that trigger a dump, or nil.
    ///   - limit: The most dumps (at least 1).
    ///   - signal: The signal that asks for one, or nil.
    ///   - pollInterval: How often resident memory is read (at least 10 ms).
    public init(
        directory: String = ".", residentThreshold: Int? = nil, limit: Int = 2,
        signal: Int32? = nil, pollInterval: Duration = .seconds(1)
    ) {
        self.directory = directory
        self.residentThreshold = residentThreshold
        self.limit = max(1, limit)
        self.signal = signal
        self.pollInterval = max(pollInterval, .milliseconds(10))
    }

    /// The settings of this process's environment (see the table above), or nil when it sets
    /// no trigger (neither `RETAINGRAPH_DUMP_ON_RSS` nor `RETAINGRAPH_DUMP_SIGNAL`).
    public static func fromEnvironment() -> HeapDumpConfiguration? {
        HeapDumpDoor.configurationFromEnvironment()
    }

    /// `2GiB`, `512MiB`, `1G` or `4096` in bytes (binary units), or nil when unreadable.
    public static func bytes(_ text: String) -> Int? { HeapDumpDoor.parseBytes(text) }
}

/// The thread that dumps this process on a signal or when its resident memory grows.
///
/// One per process. It runs no user code and holds no lock across the fork; each dump is
/// ``HeapDump/write(toFile:)``'s, into a file of ``HeapDumpConfiguration/directory`` when the
/// file system there has room for the process's resident memory and a tenth more (a dump that
/// would not fit is recorded with `ENOSPC` and not started).
///
/// ```swift
/// try HeapDumpWatcher.start(
///     HeapDumpConfiguration(directory: "/var/tmp", residentThreshold: 2 << 30, signal: SIGUSR2))
/// // kill -USR2 PID, or resident memory passing 2 GiB: /var/tmp/core.web.PID.1
/// ```
///
/// Beside each core, `CORE.txt` says what it cost: `pause_ns`, `pause_cpu_ns`, `dump_ns`, `file_size`,
/// `disk_size`, `resident`, `status` and `error`, one a line.
///
/// A signal's handler only writes a byte to a pipe the watcher polls (not `sigwait`: a signal
/// sent to the process goes to any thread that does not block it, and threads made before the
/// watcher do not).
public enum HeapDumpWatcher {
    /// Starts the watcher thread with `configuration`, installing the signal's handler.
    ///
    /// - Throws: ``HeapDumpError`` when a watcher already runs (`EALREADY`) or no thread can
    ///   be made.
    public static func start(_ configuration: HeapDumpConfiguration) throws(HeapDumpError) {
        let code = HeapDumpDoor.startWatching(configuration)
        guard code == 0 else {
            throw HeapDumpError(
                path: configuration.directory, code: code, step: "starting the watcher")
        }
    }

    /// Stops the watcher (after the dump under way, if any) and puts the signal's previous
    /// handler back.
    public static func stop() { HeapDumpDoor.stopWatching() }

    /// Whether a watcher was started and not stopped.
    public static var isRunning: Bool { HeapDumpDoor.isWatching }

    /// The dumps the watcher finished (written, failed or not started), in order.
    public static var dumps: [HeapDumpResult] { HeapDumpDoor.watchedDumps }
}
