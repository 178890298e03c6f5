import Foundation

/// How this tool asks the C library's allocator to treat the large arrays a heap reading makes.
enum AllocatorSettings {
    /// glibc's `mallopt`, found at run time (absent from other C libraries).
    private typealias SetOption = @convention(c) (Int32, Int32) -> Int32
    private static let setOption: SetOption? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "mallopt"
    ).map { unsafeBitCast($0, to: SetOption.self) }

    /// glibc's `M_MMAP_THRESHOLD`.
    private static let mmapThreshold: Int32 = -3

    /// Makes every block of 1 MiB or more a mapping of its own, given back to the system when
    /// freed (`mallopt(M_MMAP_THRESHOLD, 1 MiB)`).
    ///
    /// A heap reading makes and frees arrays of tens of megabytes one after the other (the
    /// scan's columns, then the graph builder's). glibc raises its threshold to the size of
    /// each mapping freed, so the next arrays came from the heap, whose free space it keeps:
    /// an attach of 5,000,000 objects peaked about 100 MB higher (956 MB instead of 855 MB).
    /// Setting the threshold fixes it.
    static func returnLargeBlocksWhenFreed() {
        _ = setOption?(mmapThreshold, 1 << 20)
    }
}
