import Foundation

/// The facts about the process a heap was read from that a graph file carries beside the
/// graph, as its attributes (names under `attach.`, as files of earlier versions wrote them):
/// the one file format holds a heap, with no second format for the process.
struct HeapFileAttributes {
    var process = HeapProcess(
        processID: 0, command: "?", capturedAt: Date(timeIntervalSince1970: 0))
    var limitations: [String] = []
    var statistics = HeapReadStatistics()

    init(snapshot: HeapSnapshot) {
        process = snapshot.process
        process.isThisProcess = false
        limitations = snapshot.limitations
        statistics = snapshot.statistics
    }

    /// Reads the facts back; a fact that is missing or unreadable keeps its default.
    init(_ attributes: [String: String]) {
        func value(_ name: String) -> String? { attributes["attach." + name] }
        process.processID = value("processID").flatMap { Int32($0) } ?? 0
        process.command = value("command") ?? "?"
        process.capturedAt =
            value("capturedAt").flatMap { Double($0) }.map(Date.init(timeIntervalSince1970:))
            ?? process.capturedAt
        process.stopDuration = value("stopSeconds").flatMap { Double($0) }.map {
            .nanoseconds(Int64(($0 * 1e9).rounded()))
        }
        process.threads = Self.lines(value("threads")).compactMap { line in
            guard let tab = line.firstIndex(of: "\t"), let id = Int32(line[..<tab]) else {
                return nil
            }
            return HeapThread(id: id, name: String(line[line.index(after: tab)...]))
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
            "processID": String(process.processID),
            "command": process.command,
            "capturedAt": String(process.capturedAt.timeIntervalSince1970),
            "threads": process.threads.map { "\($0.id)\t\($0.name)" }.joined(separator: "\n"),
            "limitations": limitations.joined(separator: "\n"),
            "statistics.heapBlocks": String(statistics.heapBlocks),
            "statistics.excludedFreeBlocks": String(statistics.excludedFreeBlocks),
            "statistics.dyingObjects": String(statistics.dyingObjects),
            "statistics.copiedBytes": String(statistics.copiedBytes),
            "statistics.layouts": String(statistics.layouts),
            "statistics.analysisSeconds": String(statistics.analysisSeconds),
        ]
        if let stop = process.stopDuration {
            let seconds =
                Double(stop.components.seconds) + Double(stop.components.attoseconds) / 1e18
            result["stopSeconds"] = String(seconds)
        }
        return Dictionary(uniqueKeysWithValues: result.map { ("attach." + $0, $1) })
    }

    private static func lines(_ text: String?) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}
