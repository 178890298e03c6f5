// Strings, byte arrays and a dictionary (whose storages' metadata lie in libswiftCore) held by a
// global, in a program that symbolicates a backtrace of its own with the toolchain's `Runtime`
// module when told to (`symbolicate` on standard input, answered `symbolicated`). Symbolication
// maps the images of the trace's frames again, whole and read-only (libswiftCore.so and
// libc.so.6 among them), as a heap profile's does (issue 31).
import FixtureSupport
import Runtime

final class Entry {
    let name: String
    let bytes: [UInt8]

    init(number: Int) {
        name = "entry number \(number) of the cache, long enough to be stored out of line"
        bytes = Array(repeating: UInt8(truncatingIfNeeded: number), count: 64)
    }
}

/// Captures and symbolicates a backtrace when the standard library asks for its description,
/// so that the trace has frames in libswiftCore (whose code calls `description`).
struct Probe: CustomStringConvertible {
    var description: String {
        let frames = (try? Backtrace.capture().symbolicated())??.frames.count ?? 0
        return "\(frames)"
    }
}

var cache: [String: Entry] = [:]
for number in 0..<firstArgument(or: 100) {
    let entry = Entry(number: number)
    cache[entry.name] = entry
}
announceReady("\(cache.count)")
while let line = readLine() {
    guard line == "symbolicate" else { continue }
    say("symbolicated \(String(describing: Probe()))")
}
runForever()
