import HeapGrowth
import XCTest

extension XCTestCase {
    /// Fails the test, with the growth report, when repeating `work` grows the heap.
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
        let report = try await HeapGrowth.measure(repeating: repetitions, work)
        if !report.isEmpty { XCTFail(report.text, file: file, line: line) }
        return report
    }
}
