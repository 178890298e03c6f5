import Foundation
import XCTest

extension XCTestCase {
    /// Fails the test if a task it starts from now on is still alive when it ends.
    ///
    /// Call it at the start of the test (or in `setUp()`). It notes the tasks alive now, and
    /// registers a teardown block (`addTeardownBlock`, which runs before `tearDown()`) that
    /// drives the tasks the test started from `file` until they end or `grace` is over (running
    /// the main run loop meanwhile, for tasks that wait for the main actor), then
    /// fails the test once per task left, at the line that started it, naming where it waits
    /// and what it awaits (see ``withLeakedTaskDetection(grace:startedIn:function:isolation:_:)``).
    ///
    /// ```swift
    /// func testStoppingThePollerEndsItsTask() async {
    ///     detectLeakedTasks()
    ///     let poller = Poller()
    ///     poller.start()
    ///     poller.stop()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - grace: How long the tasks may take to end after the test.
    ///   - file: The test's file (tasks started from it are the test's), and where a failure
    ///     without a starting line is reported.
    ///   - line: Where a failure without a starting line is reported.
    public func detectLeakedTasks(
        within grace: Duration = .seconds(1), file: StaticString = #filePath, line: UInt = #line
    ) {
        let before = LiveTasks.addresses()
        let path = "\(file)"
        addTeardownBlock { [weak self] in
            let leaked = LiveTasks.leakedDrivingRunLoop(
                since: before, grace: grace, startedIn: TaskOrigin(filePath: path))
            for task in leaked {
                let frame = task.createdAt
                let here = frame?.file == path && (frame?.line ?? 0) > 0
                self?.recordFailure(
                    withDescription: task.failureMessage, inFile: path,
                    atLine: here ? frame?.line ?? Int(line) : Int(line), expected: true)
            }
        }
    }
}
