/// The lookup ``AddressIndex`` makes of addresses that are already in ascending order and
/// 16-aligned (a heap walk's: it visits glibc's chunks by address): no entry per address, but a
/// bitmap of the 16-byte slots where they start.
///
/// The addresses are split into clusters where two neighbours lie more than ``clusterGap``
/// apart (a heap, a thread arena's heap, a large block mmapped on its own), and each cluster's
/// range into chunks of 1 KiB. A chunk's entry is two words: a bit per 16-byte slot that holds
/// one of the addresses, and the position of the chunk's first one. A lookup finds the cluster
/// (a binary search over a few), loads the chunk's entry (one cache line: one miss, as a hash
/// table's probe) and counts the bits below the address's. The entries take 16 bytes per KiB of
/// the ranges: under a byte an address in a heap of small objects, where the hash table takes
/// sixteen (80 MB of an attach's five million objects, at the moment its tool's memory
/// peaked), and nothing has to be hashed or placed to build it.
struct SortedAddresses {
    /// Per cluster: its first chunk's first byte.
    private let clusterStarts: [UInt]
    /// Per cluster: one past its last address.
    private let clusterEnds: [UInt]
    /// Per cluster: the index of its first chunk's entry.
    private let firstChunks: [Int]
    /// Per chunk, two words: the bits of the slots that hold an address (bit `k` for the slot
    /// at 16 × `k` bytes from the chunk's start), and the position of its first address.
    private let chunks: [UInt64]

    /// The bytes a chunk covers, as a power of two (a 64-bit word's bit per 16-byte slot).
    private static let chunkShift: UInt = 10
    /// Neighbours further apart than this start a new cluster.
    static let clusterGap: UInt = 1 << 20
    /// The most clusters a set may have (more: the hash table serves it better).
    static let maximumClusters = 4_096

    /// The lookup of `addresses[0..<count]`, or nil when they are not strictly ascending and
    /// 16-aligned (or one is 0), are too few to be worth it, fall into more than
    /// ``maximumClusters``, or are so sparse that the chunks would take more than the hash
    /// table's 16 bytes an address.
    init?(_ addresses: [UInt], count: Int) {
        guard count >= 64, count < Int(UInt32.max) else { return nil }
        let found = addresses.withUnsafeBufferPointer {
            Self.clusters(UnsafeBufferPointer(rebasing: $0.prefix(count)))
        }
        guard let found else { return nil }
        var starts: [UInt] = []
        var firstChunks: [Int] = []
        starts.reserveCapacity(found.starts.count)
        firstChunks.reserveCapacity(found.starts.count)
        var chunkCount = 0
        for (start, end) in zip(found.starts, found.ends) {
            let base = (start >> Self.chunkShift) << Self.chunkShift
            starts.append(base)
            firstChunks.append(chunkCount)
            chunkCount += Int((end - 1 - base) >> Self.chunkShift) + 1
        }
        guard chunkCount <= count else { return nil }
        let clusterStarts = starts
        let clusterEnds = found.ends
        let clusterChunks = firstChunks
        chunks = addresses.withUnsafeBufferPointer { addresses in
            [UInt64](unsafeUninitializedCapacity: 2 * chunkCount) { chunks, initialized in
                chunks.initialize(repeating: 0)
                var position = 0
                for cluster in clusterStarts.indices {
                    let base = clusterStarts[cluster]
                    let first = clusterChunks[cluster]
                    let last =
                        cluster + 1 < clusterChunks.count ? clusterChunks[cluster + 1] : chunkCount
                    // Each chunk's rank is the number of addresses before it: set as the first
                    // address of a chunk is met, and carried over chunks with none.
                    var next = first
                    while position < count, addresses[position] < clusterEnds[cluster] {
                        let offset = addresses[position] - base
                        let chunk = first + Int(offset >> Self.chunkShift)
                        while next <= chunk {
                            chunks[2 * next + 1] = UInt64(position)
                            next += 1
                        }
                        chunks[2 * chunk] |= 1 << ((offset >> 4) & 63)
                        position += 1
                    }
                    while next < last {
                        chunks[2 * next + 1] = UInt64(position)
                        next += 1
                    }
                }
                initialized = 2 * chunkCount
            }
        }
        self.clusterStarts = clusterStarts
        self.clusterEnds = clusterEnds
        self.firstChunks = clusterChunks
    }

    /// The clusters of `addresses` (their first addresses and one past their last); nil when
    /// the addresses are not strictly ascending and 16-aligned (or one is 0) or fall into more
    /// than ``maximumClusters``.
    private static func clusters(_ addresses: UnsafeBufferPointer<UInt>) -> (
        starts: [UInt], ends: [UInt]
    )? {
        guard var previous = addresses.first, previous != 0, previous & 15 == 0 else { return nil }
        var starts = [previous]
        var ends: [UInt] = []
        for address in addresses.dropFirst() {
            guard address > previous, address & 15 == 0 else { return nil }
            if address - previous > clusterGap {
                guard starts.count < maximumClusters else { return nil }
                ends.append(previous + 1)
                starts.append(address)
            }
            previous = address
        }
        ends.append(previous + 1)
        return (starts, ends)
    }

    /// The position of `address`, or -1 when it is not one of the indexed addresses.
    func position(of address: UInt) -> Int32 {
        guard address & 15 == 0 else { return -1 }
        return clusterStarts.withUnsafeBufferPointer { starts in
            // The last cluster starting at or before the address.
            var low = 0
            var high = starts.count
            while low < high {
                let middle = (low + high) / 2
                if starts[middle] <= address { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { return -1 }
            let cluster = low - 1
            guard address < clusterEnds[cluster] else { return -1 }
            let offset = address - starts[cluster]
            let chunk = firstChunks[cluster] + Int(offset >> Self.chunkShift)
            return chunks.withUnsafeBufferPointer { chunks in
                let bits = chunks[2 * chunk]
                let slot = (offset >> 4) & 63
                guard (bits >> slot) & 1 != 0 else { return -1 }
                let below = bits & ((1 << slot) &- 1)
                return Int32(truncatingIfNeeded: chunks[2 * chunk + 1])
                    &+ Int32(below.nonzeroBitCount)
            }
        }
    }

    /// The bytes the lookup takes.
    var byteCount: Int {
        chunks.count * MemoryLayout<UInt64>.stride + clusterStarts.count
            * (2 * MemoryLayout<UInt>.stride + MemoryLayout<Int>.stride)
    }
}
