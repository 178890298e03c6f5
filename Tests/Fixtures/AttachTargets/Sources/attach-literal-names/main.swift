// Names and counts a user takes literally (issue 31): N tasks asleep in `Task.sleep`, each
// capturing a `Sleeper`; a watcher keeping an `AsyncStream<ConfigChange>`'s continuation; a
// dictionary whose keys are heap strings; a thread named before `start()` that keeps its owner.
import FixtureSupport
import Foundation

final class Sleeper: @unchecked Sendable {
    var wakeups = 0
}

struct ConfigChange: Sendable {
    var key: String
}

final class ConfigWatcher: @unchecked Sendable {
    let changes: AsyncStream<ConfigChange>
    let continuation: AsyncStream<ConfigChange>.Continuation

    init() {
        (changes, continuation) = AsyncStream.makeStream(of: ConfigChange.self)
    }
}

final class Session {
    let id: Int
    init(id: Int) { self.id = id }
}

final class ThreadOwner: @unchecked Sendable {
    var ticks = 0
}

/// How many tasks reached their first sleep.
final class Started: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

let count = firstArgument(or: 20)
let started = Started()
var tasks: [Task<Void, Never>] = []
for _ in 0..<count {
    let sleeper = Sleeper()
    tasks.append(
        Task {
            while !Task.isCancelled {
                if sleeper.wakeups == 0 { started.add() }
                try? await Task.sleep(for: .seconds(3600))
                sleeper.wakeups += 1
            }
        })
}

let watcher = ConfigWatcher()

var sessionsByName: [String: Session] = [:]
for index in 0..<8 {
    // Longer than 15 bytes: each key is a heap string storage object.
    sessionsByName["session-key-number-\(index)-of-the-cache"] = Session(id: index)
}

do {
    let owner = ThreadOwner()
    let thread = Thread {
        while true {
            owner.ticks += 1
            Thread.sleep(forTimeInterval: 3600)
        }
    }
    thread.name = "config-poller"
    thread.start()
}

// The tasks are the main actor's (top-level code is): the main run loop runs them until each
// is at (or just before) its sleep; the test attaches until it sees them all asleep.
while started.value < count { RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.01)) }
announceReady("\(count)")
runForever()
