#if canImport(Glibc)
import Glibc
#endif

/// The C library allocator's controls RetainGraph uses, found at run time: glibc's `mallopt` and
/// `malloc_trim` (absent from other C libraries, where each call does nothing).
///
/// ```swift
/// GlibcAllocator.returnLargeBlocksWhenFreed()   // a tool about to read a large heap
/// GlibcAllocator.releaseFreeMemory()            // between two heap readings
/// ```
package enum GlibcAllocator {
    private typealias SetOption = @convention(c) (Int32, Int32) -> Int32
    private typealias Trim = @convention(c) (Int) -> Int32

    private static let setOption: SetOption? = symbol("mallopt")
    private static let trim: Trim? = symbol("malloc_trim")

    /// glibc's `M_MMAP_THRESHOLD`.
    private static let mmapThreshold: Int32 = -3

    private static func symbol<Function>(_ name: String) -> Function? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map {
            unsafeBitCast($0, to: Function.self)
        }
    }

    /// Makes every block of 1 MiB or more a mapping of its own, given back to the system when
    /// freed (`mallopt(M_MMAP_THRESHOLD, 1 MiB)`).
    ///
    /// A heap reading makes and frees arrays of tens of megabytes one after the other (the
    /// scan's columns, then the graph builder's). glibc raises its threshold to the size of
    /// each mapping freed, so the next arrays came from the heap, whose free space it keeps:
    /// an attach of 5,000,000 objects peaked about 100 MB higher (956 MB instead of 855 MB).
    /// Setting the threshold fixes it.
    package static func returnLargeBlocksWhenFreed() {
        _ = setOption?(mmapThreshold, 1 << 20)
    }

    /// Gives the memory the C library keeps free back to the system (`malloc_trim(0)`: the top
    /// of each arena, and the free pages inside it).
    ///
    /// The at-exit check calls it before each heap reading: what the tests freed, and then
    /// the first reading, is given back before the next allocates, so the process's peak RSS is
    /// the larger of the run's and one reading's, not their sum (hummingbird's test process:
    /// 157 MB at the peak without, 145 MB with one call between the readings).
    ///
    /// - Complexity: A walk of the allocator's arenas and free lists.
    package static func releaseFreeMemory() {
        _ = trim?(0)
    }
}
