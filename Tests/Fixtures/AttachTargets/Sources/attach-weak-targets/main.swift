// Objects that are weakly referenced, so the runtime gives each a side table, made in memory
// that held other bytes just before: malloc clears nothing, and a side table's word @8 is
// padding the runtime never writes. An attach must read each side table's counts where the
// runtime keeps them (@16), or it takes these live objects for dying ones. "ready PID COUNT".
import FixtureSupport

final class Watched {
    let value: Int
    init(_ value: Int) { self.value = value }
}

final class Watcher {
    weak var watched: Watched?
    init(_ watched: Watched) { self.watched = watched }
}

// Dirty a large block and give it back: the small blocks below are carved from the same memory
// (glibc merges the block into the top chunk, or keeps it in a bin to split), every byte set.
let scratchBytes = 64 << 10
let scratch = UnsafeMutableRawPointer.allocate(byteCount: scratchBytes, alignment: 16)
scratch.initializeMemory(as: UInt8.self, repeating: 0xFF, count: scratchBytes)
scratch.deallocate()

let count = firstArgument(or: 200)
var watched: [Watched] = []
var watchers: [Watcher] = []
watched.reserveCapacity(count)
watchers.reserveCapacity(count)
for index in 0..<count {
    let object = Watched(index)
    watchers.append(Watcher(object))  // `weak` gives `object` its side table
    watched.append(object)
}
announceReady("\(watched.count)")
runForever()
