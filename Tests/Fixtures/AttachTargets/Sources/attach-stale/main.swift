// Objects freed right before "ready", next to objects a global keeps. glibc puts the first
// seven freed in the thread's tcache and any small ones in its fastbins: both keep the chunk's
// in-use bit, headers intact, first word overwritten; the rest go to its bins. An attach must
// count the kept ones and none of the freed ones. Beside them, a 1 KiB buffer that begins with a
// copy of a kept object's header (its metadata and reference count, as a table of types or a
// copied object leaves them; not an object), and one `ManagedBuffer` of 100 elements (an object
// much larger than its class's instance size). "ready PID KEPT FASTBIN-CHUNKS".
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

/// Elements with a count as header: its instances are larger than its instance size.
final class Ring: ManagedBuffer<Int, Int> {}
let ring = Ring.create(minimumCapacity: 100) { _ in 100 }

// A buffer (never freed) that begins with a kept object's first 16 bytes.
let copiedHeader = UnsafeMutableRawPointer.allocate(byteCount: 1_024, alignment: 16)
copiedHeader.initializeMemory(as: UInt8.self, repeating: 0, count: 1_024)
withExtendedLifetime(kept[0]) {
    copiedHeader.copyMemory(
        from: Unmanaged.passUnretained(kept[0]).toOpaque(), byteCount: 16)
}
announceReady("\(kept.count) \(fastbinChunks())")
runForever()
