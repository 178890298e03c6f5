import Foundation
import HeapCensus
import HeapExport
import HeapGrowth
import LeakTracking

/// The `.heapsnapshot` files of failing checks, for Chrome DevTools' Memory panel (Load) or
/// memlab: the heap a leak report was built from, and the start and end of a growth check.
///
/// Only made on failure. Building one cannot fail; writing one to a file can, and then the
/// failure says why instead of stopping the test process.
enum HeapSnapshotFiles {
    /// The heap a leak verdict's report was built from, as V8 heap snapshot JSON; `nil` when
    /// the check read no whole heap (no heap census was recording).
    ///
    /// - Complexity: O(*n* + *e*) for the heap's objects and references, plus the
    ///   symbolication of the creation traces recorded.
    static func leak(_ verdict: WatchVerdict) -> [UInt8]? {
        guard let heap = verdict.discoveredHeap?.snapshot as? HeapSnapshot else { return nil }
        var numbering = ObjectNumbering()
        return heap.heapSnapshot(numbering: &numbering).jsonBytes()
    }

    /// The start and end of a growth measurement, numbered alike (one `ObjectNumbering`), so
    /// that an object alive in both has one id and DevTools' Comparison shows what grew.
    static func growth(_ snapshots: GrowthSnapshots) -> (start: [UInt8], end: [UInt8]) {
        var numbering = ObjectNumbering()
        let start = snapshots.start.heapSnapshot(numbering: &numbering).jsonBytes()
        let end = snapshots.end.heapSnapshot(numbering: &numbering).jsonBytes()
        return (start, end)
    }

    /// The process and the time in milliseconds, `4242-1764097000123`: file names of one
    /// failure that the next failure does not replace.
    static func uniqueStamp() -> String {
        let milliseconds = UInt64(Date().timeIntervalSince1970 * 1000)
        return "\(ProcessInfo.processInfo.processIdentifier)-\(milliseconds)"
    }

    /// Writes `bytes` as `name` into the `RETAINGRAPH_REPORTS` directory when it is set (next to
    /// the reports), otherwise into the temporary directory, for XCTest, which has no
    /// attachments on Linux.
    ///
    /// - Returns: A line for the failure message: where the file is, or why it could not be
    ///   written.
    static func write(_ bytes: [UInt8], named name: String) -> String {
        let directory =
            DirectorySink.fromEnvironment?.directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("retain-graph")
        let file = directory.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: file, options: .atomic)
            return "Heap snapshot (Chrome DevTools, Memory panel → Load): \(file.path)"
        } catch {
            return "Heap snapshot not written to \(file.path): \(error.localizedDescription)"
        }
    }
}
