/// An array stored in chunks of 4,096 elements that never move: growing it allocates a new
/// chunk and copies nothing.
///
/// The live graph's node table and reference slab grow by one element at a time to millions.
/// A Swift array grows by doubling and copying, and the buffers it leaves behind stay resident
/// in the allocator's free lists (glibc keeps freed blocks below its adaptive mmap threshold):
/// measured on a 1M-node random graph, 60 bytes per node and 33.5 per edge instead of the 48
/// and 24 the rows take. In chunks, only the pages written are resident, and nothing is freed
/// until the whole array goes.
struct ChunkedArray<Element>: RandomAccessCollection, MutableCollection {
    private static var shift: Int { 12 }
    private static var chunkSize: Int { 1 << shift }
    private static var offsetMask: Int { chunkSize - 1 }

    /// The chunks, each allocated at its full size; every chunk but the last is full.
    private var chunks: [[Element]] = []
    private(set) var count = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    @inline(__always)
    subscript(position: Int) -> Element {
        get { chunks[position >> Self.shift][position & Self.offsetMask] }
        _modify { yield &chunks[position >> Self.shift][position & Self.offsetMask] }
        set { chunks[position >> Self.shift][position & Self.offsetMask] = newValue }
    }

    /// Appends `element`, starting a new chunk when the last is full.
    mutating func append(_ element: Element) {
        if count & Self.offsetMask == 0 {
            // Allocated once, at full size (128 KB of node rows, 96 KB of reference slots; pages
            // become resident as they are written).
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }

    /// Calls `body` with each chunk's elements and the index of its first element, in order.
    func forEachChunk(_ body: (UnsafeBufferPointer<Element>, Int) -> Void) {
        for (number, chunk) in chunks.enumerated() {
            chunk.withUnsafeBufferPointer { body($0, number << Self.shift) }
        }
    }
}
