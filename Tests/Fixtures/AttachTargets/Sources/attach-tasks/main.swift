// Tasks suspended in known places, never to resume: what `retain-graph attach --tasks` must
// name, each by its function and the line where it waits (the tests find each line by the
// `wait:` comment on it). `attach-tasks N` also parks N identical tasks (one group of N).
import FixtureSupport
import Foundation

/// What a suspended task keeps alive (the task's own retained objects).
final class Refresher: @unchecked Sendable {
    var refreshes = 0
    let buffer = [UInt8](repeating: 7, count: 4096)
}

/// Continuations nobody resumes (kept, so that none is reported as leaked by its canary).
final class Parking: @unchecked Sendable {
    var continuations: [CheckedContinuation<Void, Never>] = []
    var streams: [AsyncStream<Int>.Continuation] = []
}

let parking = Parking()
let lock = NSLock()

/// A sleep loop that is never cancelled.
func refreshForever(_ refresher: Refresher) async {
    while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(3600))  // wait: sleep-loop
        refresher.refreshes += 1
    }
}

/// A checked continuation that is never resumed.
func waitForSignal() async {
    await withCheckedContinuation { continuation in  // wait: continuation
        lock.withLock { parking.continuations.append(continuation) }
    }
}

/// An `AsyncStream` iteration that nobody finishes.
func consumeUpdates() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    lock.withLock { parking.streams.append(continuation) }
    for await _ in stream {  // wait: stream
    }
}

/// A task group whose child awaits another task, which never ends.
func runGroup() async {
    let blocker = Task { await waitForSignal() }
    await withTaskGroup(of: Void.self) { group in  // wait: group-parent
        group.addTask {
            await blocker.value  // wait: group-child
        }
    }
}

/// An actor whose isolated method awaits, never resumed.
actor Mailbox {
    var delivered = 0

    func awaitDelivery() async {
        await withCheckedContinuation { continuation in  // wait: actor
            lock.withLock { parking.continuations.append(continuation) }
        }
        delivered += 1
    }
}

/// Many identical tasks, parked at one line: one group of `count`.
func parkMany(_ count: Int) {
    for _ in 0..<count {
        Task { await parkOne() }
    }
}

func parkOne() async {
    await withCheckedContinuation { continuation in  // wait: many
        lock.withLock { parking.continuations.append(continuation) }
    }
}

/// Starts every task (from a nonisolated function: top-level code runs on the main actor,
/// whose thread then waits below).
func startAll(many: Int, mailbox: Mailbox) {
    Task { await refreshForever(Refresher()) }
    Task { await waitForSignal() }
    Task { await consumeUpdates() }
    Task { await runGroup() }
    Task { await mailbox.awaitDelivery() }
    parkMany(many)
}

let many = firstArgument(or: 0)
let mailbox = Mailbox()
startAll(many: many, mailbox: mailbox)
// Ready once every task has parked: 1 + 1 (runGroup's blocker) + 1 (mailbox) + many
// continuations, and one stream.
while lock.withLock({ parking.continuations.count < 3 + many || parking.streams.count < 1 }) {
    usleep(1000)
}
announceReady()
runForever()
