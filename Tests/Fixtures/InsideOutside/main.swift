// InsideOutside: one heap, read from inside by the census and from outside by an attach, for
// HeapGraphTests' comparison of the two readers (issue 30).
//
//   RETAINGRAPH_CENSUS=1 InsideOutside CENSUS-FILE
//
// Builds owners held each way a reader must get right: an array behind a `Mutex`, a closure
// capture, a libdispatch block, a `Foundation.Timer` scheduled on a run loop, a running named
// `Thread` and a `Task`; and a dictionary whose keys are heap strings. Then writes the census's snapshot to CENSUS-FILE, prints "ready PID",
// and waits for standard input to close (the attach happens meanwhile).
import Dispatch
import Foundation
import HeapCensus
import Synchronization

/// What every holder below keeps: one per holder, so each is told apart by its `label`.
final class Owner: @unchecked Sendable {
    let label: String
    var payload: [Int]
    init(_ label: String) {
        self.label = label
        payload = Array(repeating: 7, count: 4)
    }
}

/// An array of owners behind a lock, the way a registry guards its entries.
final class Registry: Sendable {
    let entries = Mutex<[Owner]>([])
}

/// A stored closure that captures an owner.
final class Callbacks {
    var onChange: (() -> Int)?
}

nonisolated(unsafe) var registry = Registry()
nonisolated(unsafe) var callbacks = Callbacks()
/// Counters by name: each key longer than 15 bytes is a heap `String` storage object.
nonisolated(unsafe) var countsByName: [String: Int] = [:]

func build() {
    registry.entries.withLock { $0 = [Owner("mutex"), Owner("mutex")] }
    for index in 0..<3 { countsByName["requests served by worker number \(index)"] = index }
    let captured = Owner("closure")
    callbacks.onChange = { captured.payload.count }

    let blockOwner = Owner("block")
    DispatchQueue(label: "inside-outside.queue").asyncAfter(deadline: .now() + 3_600) {
        _ = blockOwner.label
    }

    let timerOwner = Owner("timer")
    let scheduled = DispatchSemaphore(value: 0)
    // corelibs Foundation names a pthread only once `start()` has stored it: each thread waits
    // for `start()` to return before naming itself.
    let timerStored = DispatchSemaphore(value: 0)
    let timerThread = Thread {
        timerStored.wait()
        Thread.current.name = "timer-loop"
        let timer = Timer(timeInterval: 3_600, repeats: true) { _ in _ = timerOwner.label }
        RunLoop.current.add(timer, forMode: .default)
        scheduled.signal()
        while true { RunLoop.current.run(until: Date(timeIntervalSinceNow: 3_600)) }
    }
    timerThread.start()
    timerStored.signal()
    scheduled.wait()

    let threadOwner = Owner("thread")
    let named = DispatchSemaphore(value: 0)
    let workerStored = DispatchSemaphore(value: 0)
    let worker = Thread {
        workerStored.wait()
        Thread.current.name = "named-worker"
        named.signal()
        while true {
            sleep(3_600)
            _ = threadOwner.label
        }
    }
    worker.start()
    workerStored.signal()
    named.wait()

    let taskOwner = Owner("task")
    let sleeping = DispatchSemaphore(value: 0)
    Task.detached {
        sleeping.signal()
        while true {
            try? await Task.sleep(for: .seconds(3_600))
            _ = taskOwner.label
        }
    }
    sleeping.wait()
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: InsideOutside CENSUS-FILE\n".utf8))
    exit(2)
}
build()
// Nothing changes after this: every thread sleeps, waits in a run loop or is suspended, so the
// census's snapshot below and the attach that follows read the same heap. (The task may still
// be on its way to its first suspension; what holds its owner, its closure, does not change.)
do {
    try HeapCensus.snapshot().write(toFile: CommandLine.arguments[1])
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
FileHandle.standardOutput.write(Data("ready \(getpid())\n".utf8))
while readLine() != nil {}
