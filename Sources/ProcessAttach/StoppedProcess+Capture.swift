import RetainGraphUtilities

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension StoppedProcess {
    /// The most bytes one `process_vm_readv` call copies (between two checks of the limits).
    static let batchBytes = 32 << 20

    /// Copies the memory an analysis of the target's heap needs, while it is stopped.
    ///
    /// Copies every private writable mapping (the heaps, thread stacks, global variables) and
    /// each image's relocated read-only data, with `process_vm_readv` in batches of up to
    /// 32 MiB; the rest of each image's file is viewed from disk (it cannot have changed).
    /// Between batches the stop limit and cancellation are checked. Unreadable pages are left
    /// zero and listed in ``ProcessMemory/limitations``.
    ///
    /// - Returns: The memory, to analyse once the target runs again.
    /// - Throws: ``AttachError/processExited(processID:during:)`` when the target is killed
    ///   meanwhile, ``AttachError/stopLimitExceeded(processID:limit:)``,
    ///   ``AttachError/cancelled(processID:)``, ``AttachError/wrongThread(processID:)``. The
    ///   target stays stopped until ``resume()`` (or until this value is dropped).
    /// - Complexity: O(*bytes*) copied; about 0.1–0.3 s per GiB.
    public borrowing func captureMemory() throws(AttachError) -> ProcessMemory {
        try checkStillInCharge()
        let during = "its memory was read"
        guard let mappings = ProcessFiles.mappings(of: processID) else {
            throw .processExited(processID: processID, during: during)
        }
        let images = ImageTable(mappings: mappings, processID: processID)
        var plan = CopyPlan(limit: options.maximumCopy)
        var regions: [MemoryRegion] = []
        for mapping in mappings where mapping.isReadable && !mapping.isShared {
            guard !mapping.path.hasPrefix("[v") else { continue }  // [vvar], [vsyscall], [vdso]
            if mapping.isWritable || !mapping.isFile {
                plan.add(mapping.range)
                continue
            }
            guard let image = images.images.first(where: { $0.path == mapping.path }) else {
                continue  // a data file (a locale archive): nothing an analysis reads
            }
            guard image.file.inode == mapping.inode else {
                plan.add(mapping.range)  // the file was replaced since: copy what is mapped
                continue
            }
            var rest = [mapping.range]
            if let relocated = image.relocatedReadOnly?.clamped(to: mapping.range),
                !relocated.isEmpty
            {
                plan.add(relocated)
                rest = [
                    mapping.range.lowerBound..<relocated.lowerBound,
                    relocated.upperBound..<mapping.range.upperBound,
                ]
            }
            for part in rest where !part.isEmpty {
                let offset = mapping.offset + (part.lowerBound - mapping.range.lowerBound)
                if let view = MemoryRegion(viewing: part, of: image.file, at: offset) {
                    regions.append(view)
                }
            }
        }
        let copies = try copy(plan)
        return ProcessMemory(
            processID: processID, command: command, threads: threads, mappings: mappings,
            images: images, regions: regions + copies.regions,
            limitations: plan.limitations + copies.limitations)
    }

    /// Copies the planned ranges, checking the limits between batches.
    private borrowing func copy(_ plan: CopyPlan) throws(AttachError)
        -> (regions: [MemoryRegion], limitations: [String])
    {
        var regions: [MemoryRegion] = []
        var chunks: [(local: UnsafeMutableRawPointer, remote: UInt, count: Int)] = []
        for range in plan.ranges {
            guard let region = MemoryRegion(copying: range), let base = region.mutableBase else {
                throw .systemError(
                    processID: processID, operation: "allocating \(range.count) bytes",
                    reason: "out of memory")
            }
            regions.append(region)
            var offset = 0
            while offset < range.count {
                let count = min(Self.batchBytes, range.count - offset)
                chunks.append((base + offset, range.lowerBound + UInt(offset), count))
                offset += count
            }
        }
        var unreadablePages = 0
        var next = 0
        while next < chunks.count {
            try checkStillInCharge()
            var batch: [(local: UnsafeMutableRawPointer, remote: UInt, count: Int)] = []
            var bytes = 0
            while next + batch.count < chunks.count, batch.count < 64,
                bytes + chunks[next + batch.count].count <= Self.batchBytes || batch.isEmpty
            {
                bytes += chunks[next + batch.count].count
                batch.append(chunks[next + batch.count])
            }
            let result = ProcessAccess.read(processID, ranges: batch)
            StopPoints.reach("copied a batch of \(batch.count) ranges, \(bytes) bytes")
            switch result {
            case .success(let copied) where copied == bytes:
                next += batch.count
            case .success(let copied):
                // The kernel stopped at an unreadable page: finish that chunk page by page.
                var done = 0
                var index = 0
                while index < batch.count, done + batch[index].count <= copied {
                    done += batch[index].count
                    index += 1
                }
                next += index
                if next < chunks.count {
                    unreadablePages += try copyPageByPage(chunks[next])
                    next += 1
                }
            case .failure(let error) where error.code == ESRCH:
                throw .processExited(processID: processID, during: "its memory was read")
            case .failure(let error) where error.code == EFAULT:
                unreadablePages += try copyPageByPage(chunks[next])
                next += 1
            case .failure(let error):
                throw .systemError(
                    processID: processID, operation: "process_vm_readv",
                    reason: error.description)
            }
        }
        let limitations =
            unreadablePages == 0
            ? [] : ["\(unreadablePages) page\(unreadablePages == 1 ? "" : "s") could not be read"]
        return (regions, limitations)
    }

    /// Copies one chunk a page at a time, leaving unreadable pages zero; returns their number.
    private borrowing func copyPageByPage(
        _ chunk: (local: UnsafeMutableRawPointer, remote: UInt, count: Int)
    ) throws(AttachError) -> Int {
        var unreadable = 0
        var offset = 0
        while offset < chunk.count {
            let count = min(4096, chunk.count - offset)
            switch ProcessAccess.read(
                processID, ranges: [(chunk.local + offset, chunk.remote + UInt(offset), count)])
            {
            case .success(let copied) where copied == count: break
            case .failure(let error) where error.code == ESRCH:
                throw .processExited(processID: processID, during: "its memory was read")
            default: unreadable += 1
            }
            offset += count
        }
        return unreadable
    }
}

/// The ranges a capture copies, within the copy limit.
struct CopyPlan {
    let limit: Int
    private(set) var ranges: [Range<UInt>] = []
    private(set) var total = 0
    private(set) var limitations: [String] = []

    init(limit: Int) { self.limit = limit }

    mutating func add(_ range: Range<UInt>) {
        guard !range.isEmpty else { return }
        let room = max(0, limit - total)
        guard room > 0 else {
            limitations.append("not copied (copy limit reached): \(Self.describe(range))")
            return
        }
        var kept = range
        if range.count > room {
            kept = range.lowerBound..<range.lowerBound + UInt(room)
            limitations.append(
                "cut at the copy limit: \(Self.describe(kept.upperBound..<range.upperBound))")
        }
        ranges.append(kept)
        total += kept.count
    }

    private static func describe(_ range: Range<UInt>) -> String {
        "0x\(String(range.lowerBound, radix: 16))-0x\(String(range.upperBound, radix: 16))"
    }
}
