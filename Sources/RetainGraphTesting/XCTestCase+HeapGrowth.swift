import Foundation
import HeapGrowth
import XCTest

extension XCTestCase {
    /// Fails the test, with the growth report, when repeating `work` grows the heap.
    ///
    /// The failure also names two `.heapsnapshot` files, the heap before and after the
    /// measurement numbered alike, for Chrome DevTools' Comparison view: written into the
    /// `RETAINGRAPH_REPORTS` directory when it is set, otherwise into the temporary directory
    /// (XCTest on Linux has no attachments).
    ///
    /// ```swift
    /// func testClosingAScreenLeavesNothing() async throws {
    ///     try await assertHeapDoesNotGrow(repeating: 50) {
    ///         let screen = Screen(); screen.open(); screen.close()
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - repetitions: Repetitions per round (at least 10).
    ///   - file: The file the failure is recorded in; the caller's by default.
    ///   - line: The line the failure is recorded at; the caller's by default.
    ///   - work: One repetition.
    /// - Returns: The report, for further checks.
    /// - Throws: What `work` throws.
    @discardableResult
    public func assertHeapDoesNotGrow(
        repeating repetitions: Int = 20, file: StaticString = #filePath, line: UInt = #line,
        _ work: () async throws -> Void
    ) async throws -> GrowthReport {
        let (report, snapshots) = try await HeapGrowth.measure(
            repeating: repetitions, warmUp: 1, keepingSnapshots: true,
            settle: { await HeapGrowth.defaultSettle() }, work)
        guard !report.isEmpty else { return report }
        var message = report.text
        // XCTest on Linux has no attachments: the files go where the reports go.
        if let snapshots {
            let files = HeapSnapshotFiles.growth(snapshots)
            let name = "heap-growth-\(HeapSnapshotFiles.uniqueStamp())"
            message +=
                "\n" + HeapSnapshotFiles.write(files.start, named: name + "-start.heapsnapshot")
            message += "\n" + HeapSnapshotFiles.write(files.end, named: name + "-end.heapsnapshot")
        }
        XCTFail(message, file: file, line: line)
        return report
    }
}
