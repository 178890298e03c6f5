import RetainGraphUtilities
import RuntimeLayouts

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A range of the target's memory as this process sees it: a copy taken while the target was
/// stopped, or a view of the file the target maps there (read-only data that cannot change).
final class MemoryRegion: @unchecked Sendable {
    /// The target's addresses.
    let range: Range<UInt>
    /// Where `range.lowerBound` is here.
    let base: UnsafeRawPointer
    /// Whether the bytes were copied from the target (rather than read from its file).
    let isCopy: Bool
    private let allocation: UnsafeMutableRawPointer?
    private let allocationSize: Int
    /// Keeps a file view's mapping alive.
    private let file: ELFFile?

    /// A zeroed buffer for a copy of `range` (anonymous memory: untouched pages cost nothing).
    init?(copying range: Range<UInt>) {
        let size = Int(range.upperBound - range.lowerBound)
        guard
            let memory = mmap(
                nil, size, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
            memory != MAP_FAILED
        else { return nil }
        self.range = range
        base = UnsafeRawPointer(memory)
        isCopy = true
        allocation = memory
        allocationSize = size
        file = nil
    }

    /// A view of `file` from byte `offset` for `range`; `isCopy` when the file holds a copy of
    /// the target's memory (a core file) rather than an image's own bytes.
    init?(viewing range: Range<UInt>, of file: ELFFile, at offset: UInt, isCopy: Bool = false) {
        let size = range.upperBound - range.lowerBound
        guard let start = file.bytes.baseAddress, offset <= UInt(file.bytes.count),
            UInt(file.bytes.count) - offset >= size
        else { return nil }
        self.range = range
        base = start + Int(offset)
        self.isCopy = isCopy
        allocation = nil
        allocationSize = 0
        self.file = file
    }

    deinit {
        if let allocation { munmap(allocation, allocationSize) }
    }

    /// The local address of target address `address` (which must lie in `range`).
    @inline(__always)
    func local(_ address: UInt) -> UnsafeRawPointer { base + Int(address &- range.lowerBound) }

    /// Where a copy's bytes go.
    var mutableBase: UnsafeMutableRawPointer? { allocation }
}

/// What an attach read from a stopped process: its writable memory, copied while every thread
/// stood still, its threads' registers and stack pointers, and views of the image files it maps.
///
/// Everything an analysis of the target's heap reads comes from here, so the analysis runs
/// after the target was let go and sees one consistent moment, even if the target has exited
/// since. Get one from ``StoppedProcess/captureMemory()``.
public struct ProcessMemory: MemoryReader, Sendable {
    /// The target's process id.
    public let processID: Int32
    /// The target's name.
    public let command: String
    /// The target's threads, as they were stopped.
    public let threads: [StoppedThread]
    /// How many bytes were copied from the target.
    public let copiedBytes: Int
    /// What could not be read (unreadable pages, mappings cut at the copy limit).
    public let limitations: [String]
    let mappings: [Mapping]
    let images: ImageTable
    /// By address; `starts[i] == regions[i].range.lowerBound`.
    let regions: [MemoryRegion]
    private let starts: [UInt]
    /// When the memory was read, in seconds since 1970, if not now (a core file's time).
    var capturedAt: Double?

    init(
        processID: Int32, command: String, threads: [StoppedThread], mappings: [Mapping],
        images: ImageTable, regions: [MemoryRegion], limitations: [String]
    ) {
        self.processID = processID
        self.command = command
        self.threads = threads
        self.mappings = mappings
        self.images = images
        self.regions = regions.sorted { $0.range.lowerBound < $1.range.lowerBound }
        starts = self.regions.map(\.range.lowerBound)
        copiedBytes = regions.filter(\.isCopy).reduce(0) { $0 + $1.range.count }
        self.limitations = limitations
    }

    /// The region that holds target address `address`.
    ///
    /// - Complexity: O(log *regions*).
    func region(containing address: UInt) -> MemoryRegion? {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let region = regions[low - 1]
        return region.range.contains(address) ? region : nil
    }

    /// The local address of `count` bytes at target address `address`, when one region holds
    /// them all.
    package func bytes(at address: UInt, count: Int) -> UnsafeRawPointer? {
        guard count >= 0, let region = region(containing: address),
            region.range.upperBound - address >= UInt(count)
        else { return nil }
        return region.local(address)
    }

    /// The copied regions (the target's writable memory), by address.
    var copiedRegions: [MemoryRegion] { regions.filter(\.isCopy) }
}

/// Reads words near each other without a region lookup per word.
struct MemoryCursor {
    let memory: ProcessMemory
    private var region: MemoryRegion?

    init(_ memory: ProcessMemory) { self.memory = memory }

    /// The word at `address`, or nil when it was not read.
    @inline(__always)
    mutating func word(at address: UInt) -> UInt? {
        if let region, address >= region.range.lowerBound, address < region.range.upperBound,
            region.range.upperBound - address >= 8
        {
            return region.local(address).loadUnaligned(as: UInt.self)
        }
        guard let found = memory.region(containing: address),
            found.range.upperBound &- address >= 8
        else { return nil }
        region = found
        return found.local(address).loadUnaligned(as: UInt.self)
    }
}
