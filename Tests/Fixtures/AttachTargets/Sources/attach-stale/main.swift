// Objects freed right before "ready", next to objects a global keeps. glibc puts the first
// seven freed in the thread's tcache and any small ones in its fastbins: both keep the chunk's
// in-use bit, headers intact, first word overwritten; the rest go to its bins. An attach must
// count the kept ones and none of the freed ones. "ready PID KEPT FASTBIN-CHUNKS".
import FixtureSupport

#if canImport(Glibc)
import Glibc
#endif

/// glibc's own count of the chunks in its fastbins (freed, yet still marked in use), from
/// `malloc_info`'s report: `<total type="fast" count="N" …/>` per arena.
func fastbinChunks() -> Int {
    typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info") else {
        return -1
    }
    var buffer: UnsafeMutablePointer<CChar>?
    var size = 0
    guard let stream = open_memstream(&buffer, &size) else { return -1 }
    _ = unsafeBitCast(symbol, to: MallocInfo.self)(0, stream)
    fclose(stream)
    guard let buffer else { return -1 }
    defer { free(buffer) }
    var total = 0
    for line in String(cString: buffer).split(separator: "\n")
    where line.contains("<total type=\"fast\"") {
        if let count = line.split(separator: "\"").dropFirst(3).first.flatMap({ Int($0) }) {
            total += count
        }
    }
    return total
}

final class KeptObject {
    let value: Int
    init(_ value: Int) { self.value = value }
}

final class FreedObject {
    let value: Int
    init(_ value: Int) { self.value = value }
}

var kept: [KeptObject] = []
let count = firstArgument(or: 1000)
var freed: [FreedObject] = []
freed.reserveCapacity(count)
for index in 0..<count {
    kept.append(KeptObject(index))
    freed.append(FreedObject(index))
}
freed.removeAll(keepingCapacity: true)  // every FreedObject is freed here
announceReady("\(kept.count) \(fastbinChunks())")
runForever()
