import HeapCensus
import StackTraces

#if canImport(Glibc)
import Glibc
#endif

/// Symbolicates an address of the C library never looked up before (the `Runtime` module's
/// route: the library has no DWARF), then prints how many `Runtime` image sources the census
/// still sees alive: `image-sources=<count>` (the symbolicator must not leave them behind on
/// the calling thread), and the frame it found.
enum ImagesRun {
    static func run() {
        guard HeapCensus.start(), let qsort = dlsym(nil, "qsort") else {
            print("census unavailable")
            return
        }
        let address = UInt(bitPattern: qsort) + 17
        let frames = StackTrace(addresses: [address]).symbolicated()
        let heap = HeapCensus.snapshot()
        let sources = heap.countsByType().filter { $0.typeName.contains("ImageSource") }
        print("image-sources=\(sources.reduce(0) { $0 + $1.count })")
        for source in sources { print("type \(source.typeName) \(source.count)") }
        print("frame \(frames.first?.description ?? "none")")
    }
}
