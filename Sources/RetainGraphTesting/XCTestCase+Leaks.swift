import Foundation
import LeakTracking
import ReferenceReflection
import RetainGraph
import XCTest

extension XCTestCase {
    /// Expects `object` to die by the end of the test, and fails the test if it does not.
    ///
    /// The first call in a test gives the test a watcher of its own and registers a teardown
    /// block (`addTeardownBlock`, which runs before `tearDown()`) that drives the main run
    /// loop until every tracked object died or its grace is over, fails the test once per leak
    /// or zombie with the text report, and drops the watcher whatever happened. The watcher
    /// discovers undeclared references (stored properties, closure captures) by reflection,
    /// plus whatever `DiscoveryRegistry.shared` holds.
    ///
    /// ```swift
    /// func testClosingReleasesTheScreen() {
    ///     let screen = ClockScreen()
    ///     trackForLeaks(screen)
    ///     screen.open()
    ///     screen.close()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object that should be gone when the test ends.
    ///   - grace: How long it may take after the test body.
    ///   - reason: Why it should die, printed in the report.
    ///   - graph: The graph that explains leaks (used by the test's first call).
    ///   - fileID: The call's `#fileID`, kept with the watch.
    ///   - file: Where a failure of this object is reported: this call's file.
    ///   - line: Where a failure of this object is reported: this call's line.
    public func trackForLeaks(
        _ object: AnyObject, within grace: Duration = .milliseconds(100),
        reason: String = "the test ended", graph: LiveGraph = .shared,
        fileID: String = #fileID, file: StaticString = #filePath, line: UInt = #line
    ) {
        leakSession(graph: graph, file: file, line: line)
            .watcher.expectDeallocation(
                of: object, within: grace, reason: reason, fileID: fileID,
                filePath: "\(file)", line: Int(line), column: 1)
    }

    /// The test's session, made (with its teardown check) at first use.
    private func leakSession(graph: LiveGraph, file: StaticString, line: UInt)
        -> XCTestLeakSession
    {
        let (session, isNew) = XCTestLeakSessions.session(for: self, graph: graph)
        if isNew {
            addTeardownBlock { [weak self] in
                guard let self else { return }
                self.assertNoLeaks(file: file, line: line)
                XCTestLeakSessions.end(for: self)
            }
        }
        return session
    }

    /// Accepts leaks matching `knownLeaks` for the rest of this test: they are still found,
    /// but do not fail it (like LeakCanary's `@SkipLeakDetection`, with a reason).
    ///
    /// ```swift
    /// allowLeaks([.type(LegacyPoller.self, reason: "invalidated by the app delegate, #42")])
    /// ```
    ///
    /// - Parameters:
    ///   - knownLeaks: The accepted leaks, each with its reason.
    ///   - graph: The graph, if this is the test's first leak-tracking call; later calls share
    ///     the first call's graph.
    public func allowLeaks(_ knownLeaks: [KnownLeak], graph: LiveGraph = .shared) {
        leakSession(graph: graph, file: #filePath, line: #line).allow(knownLeaks)
    }

    /// Checks the tracked objects now and fails the test once per unexpected leak or zombie.
    ///
    /// Each failure is recorded at the ``trackForLeaks(_:within:reason:graph:fileID:file:line:)``
    /// call that tracked the object, so an IDE or CI annotation points at that line; `file` and
    /// `line` are used for a watch made without a location. The watches are forgotten
    /// afterwards, so the teardown check does not repeat them. When a heap census is
    /// recording, the failure also names a `.heapsnapshot` file of the heap the report was
    /// built from (in the `RETAINGRAPH_REPORTS` directory when it is set, otherwise in the
    /// temporary directory: XCTest on Linux has no attachments).
    ///
    /// - Parameters:
    ///   - timeout: The longest to wait for tracked objects to die.
    ///   - file: Where a failure without a location of its own is reported.
    ///   - line: Where a failure without a location of its own is reported.
    public func assertNoLeaks(
        timeout: Duration = .seconds(10), file: StaticString = #filePath, line: UInt = #line
    ) {
        for leak in collectLeaks(timeout: timeout) {
            var message = leak.failureMessage
            // XCTest on Linux has no attachments: the heap goes where the reports go.
            if let report = leak.report, let heap = HeapSnapshotFiles.leak(leak) {
                message +=
                    "\n"
                    + HeapSnapshotFiles.write(
                        heap, named: report.attachmentBaseName + ".heapsnapshot")
            }
            let site = leak.location
            guard !site.filePath.isEmpty, site.line > 0 else {
                XCTFail(message, file: file, line: line)
                continue
            }
            recordFailure(
                withDescription: message, inFile: site.filePath, atLine: site.line,
                expected: true)
        }
    }

    /// Checks the tracked objects now and returns the unexpected leaks and zombies instead of
    /// failing; the watches are forgotten.
    ///
    /// This is the way to expect a leak in swift-corelibs-xctest, which has no
    /// `XCTExpectFailure`: plant it, then assert on what this returns.
    ///
    /// ```swift
    /// trackForLeaks(owner)
    /// owner = nil
    /// let leaks = collectLeaks()
    /// XCTAssertEqual(leaks.first?.report?.hint.code, .strongTimerTarget)
    /// ```
    ///
    /// - Parameter timeout: The longest to wait for tracked objects to die.
    /// - Returns: The leak and zombie verdicts no allowed leak covers.
    public func collectLeaks(timeout: Duration = .seconds(10)) -> [WatchVerdict] {
        guard let session = XCTestLeakSessions.existingSession(for: self) else { return [] }
        let verdicts = session.watcher.settle(timeout: timeout)
        session.watcher.deliver(verdicts)
        session.watcher.removeAll()
        return TaskHolderNames.naming(
            verdicts.filter { verdict in
                verdict.isUnexpectedProblem
                    && !session.allowances.contains { known in
                        verdict.report.map(known.matches) ?? false
                    }
            })
    }
}

/// The watcher of each running XCTest case, keyed by the test case object.
final class XCTestLeakSession: @unchecked Sendable {
    let watcher: LeakWatcher
    private let lock = NSLock()
    private var allowed: [KnownLeak] = []

    init(graph: LiveGraph) { watcher = LeakDetectionOptions(graph: graph).makeWatcher() }

    func allow(_ knownLeaks: [KnownLeak]) { lock.withLock { allowed += knownLeaks } }

    var allowances: [KnownLeak] { lock.withLock { allowed } }
}

enum XCTestLeakSessions {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var sessions: [ObjectIdentifier: XCTestLeakSession] = [:]

    static func session(for test: XCTestCase, graph: LiveGraph) -> (
        session: XCTestLeakSession, isNew: Bool
    ) {
        lock.withLock {
            if let existing = sessions[ObjectIdentifier(test)] { return (existing, false) }
            let session = XCTestLeakSession(graph: graph)
            sessions[ObjectIdentifier(test)] = session
            return (session, true)
        }
    }

    static func existingSession(for test: XCTestCase) -> XCTestLeakSession? {
        lock.withLock { sessions[ObjectIdentifier(test)] }
    }

    static func end(for test: XCTestCase) {
        _ = lock.withLock { sessions.removeValue(forKey: ObjectIdentifier(test)) }
    }
}
