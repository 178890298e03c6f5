import Foundation

/// Counts about how a ``RemoteHeapSnapshot`` was read.
public struct RemoteHeapStatistics: Hashable, Sendable {
    /// Blocks in use on glibc's heaps (objects or not).
    public var heapBlocks = 0
    /// Freed blocks that still looked in use (tcache, fastbins), left out.
    public var excludedFreeBlocks = 0
    /// Objects found dying (being deinitialised), left out.
    public var dyingObjects = 0
    /// Bytes copied from the target while it was stopped.
    public var copiedBytes = 0
    /// Layouts compiled (distinct metadata met).
    public var layouts = 0
    /// Seconds spent analysing the copy (after the target was let go).
    public var analysisSeconds = 0.0
    /// What the walk of glibc's heaps read and could not read, checked against glibc's arena
    /// list: when it is not complete, live objects may be missing from the snapshot. Nil for a
    /// snapshot read from a file (graph files do not carry it; its problems are among the
    /// snapshot's limitations).
    public var heapWalk: HeapWalkCompleteness?

    /// Creates statistics with every count zero.
    public init() {}
}

/// The facts about an attached process that a graph file carries beside the graph, as its
/// attributes (names under `attach.`): the one file format holds an attach's heap, with no
/// second format for the process.
struct AttachAttributes {
    var processID: Int32 = 0
    var command = "?"
    var capturedAt = Date(timeIntervalSince1970: 0)
    var stopDuration: Duration?
    var threads: [RemoteThread] = []
    var limitations: [String] = []
    var statistics = RemoteHeapStatistics()

    init(snapshot: RemoteHeapSnapshot) {
        processID = snapshot.processID
        command = snapshot.command
        capturedAt = snapshot.capturedAt
        stopDuration = snapshot.stopDuration
        threads = snapshot.threads
        limitations = snapshot.limitations
        statistics = snapshot.statistics
    }

    /// Reads the facts back; a fact that is missing or unreadable keeps its default.
    init(_ attributes: [String: String]) {
        func value(_ name: String) -> String? { attributes["attach." + name] }
        processID = value("processID").flatMap { Int32($0) } ?? 0
        command = value("command") ?? "?"
        capturedAt =
            value("capturedAt").flatMap { Double($0) }.map(Date.init(timeIntervalSince1970:))
            ?? capturedAt
        stopDuration = value("stopSeconds").flatMap { Double($0) }.map {
            .nanoseconds(Int64(($0 * 1e9).rounded()))
        }
        threads = Self.lines(value("threads")).compactMap { line in
            guard let tab = line.firstIndex(of: "\t"), let id = Int32(line[..<tab]) else {
                return nil
            }
            return RemoteThread(id: id, name: String(line[line.index(after: tab)...]))
        }
        limitations = Self.lines(value("limitations"))
        func count(_ name: String) -> Int { value("statistics." + name).flatMap { Int($0) } ?? 0 }
        statistics.heapBlocks = count("heapBlocks")
        statistics.excludedFreeBlocks = count("excludedFreeBlocks")
        statistics.dyingObjects = count("dyingObjects")
        statistics.copiedBytes = count("copiedBytes")
        statistics.layouts = count("layouts")
        statistics.analysisSeconds =
            value("statistics.analysisSeconds").flatMap { Double($0) } ?? 0
    }

    /// The facts as attributes.
    var attributes: [String: String] {
        var result: [String: String] = [
            "processID": String(processID),
            "command": command,
            "capturedAt": String(capturedAt.timeIntervalSince1970),
            "threads": threads.map { "\($0.id)\t\($0.name)" }.joined(separator: "\n"),
            "limitations": limitations.joined(separator: "\n"),
            "statistics.heapBlocks": String(statistics.heapBlocks),
            "statistics.excludedFreeBlocks": String(statistics.excludedFreeBlocks),
            "statistics.dyingObjects": String(statistics.dyingObjects),
            "statistics.copiedBytes": String(statistics.copiedBytes),
            "statistics.layouts": String(statistics.layouts),
            "statistics.analysisSeconds": String(statistics.analysisSeconds),
        ]
        if let stopDuration { result["stopSeconds"] = String(stopDuration.attachSeconds) }
        return Dictionary(uniqueKeysWithValues: result.map { ("attach." + $0, $1) })
    }

    private static func lines(_ text: String?) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}
