// Objects made on a thread of their own: glibc gives that thread an arena of its own, whose
// memory comes in heaps of at most 64 MiB, each a mapping aligned on 64 MiB that starts with a
// `heap_info`. `attach-arena-heaps N` makes N `Record`s of about 4 KiB there (the default, 24,000,
// is about 100 MiB: two heaps, linked by `heap_info.prev`, the first one holding the arena's
// `malloc_state`), held by a global, then answers `ready PID N`.
import FixtureSupport
import Foundation

final class Record {
    let number: Int
    let payload: [UInt8]

    init(number: Int) {
        self.number = number
        payload = Array(repeating: UInt8(truncatingIfNeeded: number), count: 4000)
    }
}

/// Filled by the arena's thread, read by the main thread once it has finished.
nonisolated(unsafe) var records: [Record] = []

let count = firstArgument(or: 24_000)
let done = DispatchSemaphore(value: 0)
let maker = Thread {
    var made: [Record] = []
    made.reserveCapacity(count)
    for number in 0..<count { made.append(Record(number: number)) }
    records = made
    done.signal()
    while true { sleep(60) }  // the thread (and its arena) stay
}
maker.start()
done.wait()
announceReady("\(records.count)")
runForever()
