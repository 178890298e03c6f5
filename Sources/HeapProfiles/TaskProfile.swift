import HeapCensus
public import ProcessAttach
import StackTraces

/// A profile of this process's tasks in pprof's format, by async backtrace: where tasks pile
/// up, as Go's goroutine profile shows where goroutines wait.
///
/// One sample per group of tasks with the same state and async backtrace
/// (``/ProcessAttach/TaskBacktraceGroup``), of sample type `tasks` (unit `count`), its stack the
/// group's async frames (innermost first, compiler-generated thunks left out) with their
/// functions, files and lines, and labels `state` (`suspended`, `running`…) and `awaiting`
/// (`Task.sleep(for:tolerance:clock:)`). `go tool pprof -top` shows the calls tasks wait in,
/// `-traces` every group's backtrace, `-tagfocus=state=suspended` the suspended ones.
///
/// ```swift
/// HeapCensus.start()                               // the census knows every task
/// // … later, on request:
/// let bytes = try TaskProfile.current().gzipped()  // what /debug/pprof/tasks serves
/// ```
public struct TaskProfile: Sendable {
    /// The tasks the profile shows.
    public let tasks: TaskDump

    /// A profile of `tasks`.
    ///
    /// - Parameter tasks: A task dump (``/ProcessAttach/TaskInspection/dump(ofTasksAt:)``).
    public init(_ tasks: TaskDump) { self.tasks = tasks }

    /// A profile of this process's tasks now: every task the census knows, read through the
    /// remote mirror (``/ProcessAttach/TaskInspection/thisProcess()``).
    ///
    /// - Returns: The profile; empty when the census does not record (``/HeapCensus/HeapCensus/start()``)
    ///   or this process's tasks cannot be read.
    /// - Complexity: O(*n*) for the census's *n* live objects, a few mirror reads per task,
    ///   and a symbolizer run for resume addresses not seen before.
    public static func current() -> TaskProfile {
        HeapCensus.withAllocationsUnseen {
            let addresses = Array(HeapCensus.counts().addresses(ofType: "Task"))
            let dump = TaskInspection.thisProcess()?.dump(ofTasksAt: addresses)
            return TaskProfile(dump ?? TaskDump.empty)
        }
    }

    /// The profile as pprof's protocol buffer, not compressed.
    ///
    /// - Returns: A serialized `perftools.profiles.Profile`.
    /// - Complexity: O(*g* × *d*) for *g* groups of backtraces *d* frames deep.
    public func pprof() -> [UInt8] {
        HeapCensus.withAllocationsUnseen {
            var tables = PprofTables()
            let count = tables.string("count")
            let tasksType = tables.string("tasks")
            tables.profile.sampleTypes = [.init(type: tasksType, unit: count)]
            tables.profile.periodType = .init(type: tasksType, unit: count)
            tables.profile.period = 1
            tables.profile.defaultSampleType = tasksType
            let stateKey = tables.string("state")
            let awaitingKey = tables.string("awaiting")
            for group in tasks.groups {
                let frames = group.tasks[0].backtrace
                var addresses: [UInt] = []
                for frame in frames {
                    if addresses.last != frame.address { addresses.append(frame.address) }
                    tables.frames[frame.address, default: []].append(frame)
                }
                var labels = [
                    PprofProfile.Label(key: stateKey, string: tables.string(group.state.rawValue))
                ]
                if let awaiting = group.awaiting {
                    labels.append(.init(key: awaitingKey, string: tables.string(awaiting)))
                }
                let locations = addresses.map { tables.location(at: $0) }
                tables.profile.samples.append(
                    .init(locations: locations, values: [Int64(group.count)], labels: labels))
            }
            tables.putExecutableFirst()
            return tables.profile.encoded()
        }
    }

    /// The profile gzip-compressed, as pprof files and endpoints hold it.
    ///
    /// - Returns: The gzip data.
    /// - Throws: ``HeapProfileError/compressionFailed`` when zlib fails (out of memory).
    public func gzipped() throws -> [UInt8] {
        let encoded = pprof()
        return try HeapCensus.withAllocationsUnseen { try Gzip.compress(encoded) }
    }
}
