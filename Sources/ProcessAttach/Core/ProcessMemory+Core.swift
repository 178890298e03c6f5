import RetainGraphUtilities

extension ProcessMemory {
    /// `AT_ENTRY` and `AT_SYSINFO_EHDR` of the auxiliary vector.
    private static let entryKey: UInt = 9
    private static let vdsoKey: UInt = 33
    /// How far above its executable Linux starts a process's `brk` heap (x86-64: 32 MiB).
    private static let brkRandomization: UInt = 32 << 20
    /// `user_regs_struct`'s `rsp`.
    static let stackPointerRegister = 19

    /// The memory of the process a core file holds: its dumped segments read in place from the
    /// core, the rest of each image from its file, with the process's threads and memory map.
    ///
    /// - Parameters:
    ///   - core: The parsed core.
    ///   - sysroot: Where the process's files are (nil: this machine's root).
    /// - Throws: A ``CoreFileError`` when a file the process mapped is missing or changed.
    init(core: CoreFile, sysroot: String?) throws(CoreFileError) {
        let mappings = Self.mappings(of: core)
        let images = try CoreImages(mappings: mappings, core: core, sysroot: sysroot)
        var regions: [MemoryRegion] = []
        var missingBytes = 0
        let anonymousDumped = mappings.contains { mapping in
            !mapping.isFile && mapping.isWritable
                && core.loads(overlapping: mapping.range).contains { $0.fileSize > 0 }
        }
        guard anonymousDumped else {
            throw .malformed(
                path: core.path,
                reason: "it holds no anonymous memory, so no heap (was bit 0 of the process's "
                    + "/proc/PID/coredump_filter off?)")
        }
        for mapping in mappings where mapping.isReadable {
            var covered = mapping.range.lowerBound
            var rest: [Range<UInt>] = []
            for load in core.loads(overlapping: mapping.range) {
                let part = mapping.range.clamped(to: load.range)
                if part.lowerBound > covered { rest.append(covered..<part.lowerBound) }
                let dumpedEnd = min(part.upperBound, load.range.lowerBound + load.fileSize)
                if dumpedEnd > part.lowerBound {
                    let dumped = part.lowerBound..<dumpedEnd
                    let isImagePage = mapping.isFile && !mapping.isWritable && mapping.offset == 0
                    if let region = MemoryRegion(
                        viewing: dumped, of: core.file,
                        at: load.offset + (dumped.lowerBound - load.range.lowerBound),
                        isCopy: !isImagePage)
                    {
                        regions.append(region)
                    }
                }
                let undumped = max(dumpedEnd, part.lowerBound)..<part.upperBound
                if !undumped.isEmpty { rest.append(undumped) }
                covered = max(covered, part.upperBound)
            }
            if covered < mapping.range.upperBound {
                rest.append(covered..<mapping.range.upperBound)
            }
            for piece in rest {
                if mapping.isFile, let file = images.files[mapping.path],
                    let view = MemoryRegion(
                        viewing: piece, of: file,
                        at: mapping.offset + (piece.lowerBound - mapping.range.lowerBound))
                {
                    regions.append(view)
                } else if mapping.isWritable, !mapping.isFile, !mapping.path.hasPrefix("["),
                    core.retainGraph.writer == nil, let zeros = MemoryRegion(copying: piece)
                {
                    // Anonymous memory the kernel left out although it dumps anonymous memory:
                    // never written (no page of its own), so zeros: a library's .bss past its
                    // file. (RetainGraph's writers leave nothing out but what they say.)
                    regions.append(zeros)
                } else if mapping.isWritable, !mapping.path.hasPrefix("[v") {
                    missingBytes += piece.count
                }
            }
        }
        var limitations = core.retainGraph.statements + images.limitations
        if missingBytes > 0 {
            limitations.append(
                "\(ByteCount.description(missingBytes)) of writable memory is not in the core "
                    + "(its coredump_filter left it out)")
        }
        if core.retainGraph.threadNames.isEmpty, core.threads.count > 1 {
            limitations.append("thread names are not in this core: threads are named by id")
        }
        self.init(
            processID: core.processID, command: core.command,
            threads: Self.threads(of: core), mappings: mappings,
            images: ImageTable(images: images.images), regions: regions, limitations: limitations)
        capturedAt = core.retainGraph.time
    }

    /// The threads: those with registers, then the stacks of threads whose registers are
    /// unknown, each as a thread whose stack is read whole from its lowest address.
    private static func threads(of core: CoreFile) -> [StoppedThread] {
        var threads = core.threads.map { thread in
            StoppedThread(
                id: thread.id,
                name: core.retainGraph.threadNames[thread.id]
                    ?? (thread.id == core.processID ? core.command : "?"),
                stackPointer: thread.registers[stackPointerRegister], registers: thread.registers)
        }
        for stack in core.retainGraph.unknownStacks {
            var registers = [UInt](repeating: 0, count: CoreFile.registerCount)
            registers[ProcessRoots.threadPointerRegister] = stack.threadPointer
            threads.append(
                StoppedThread(
                    id: 0, name: "a thread's stack at fork (registers unknown, read whole)",
                    stackPointer: stack.range.lowerBound, registers: registers))
        }
        return threads
    }

    /// The process's memory map: the one its writer noted (RetainGraph's dumps), else made
    /// from the core's segments and `NT_FILE`, with the `brk` heap and the vDSO named.
    static func mappings(of core: CoreFile) -> [Mapping] {
        if let maps = core.retainGraph.maps {
            let noted = maps.split(separator: "\n").compactMap(Mapping.init(line:))
            if !noted.isEmpty { return noted }
        }
        let files = Dictionary(
            core.files.map { ($0.range.lowerBound, $0) }, uniquingKeysWith: { first, _ in first })
        let entry = core.auxiliaryVector[entryKey]
        let executable = entry.flatMap { entry in core.files.first { $0.range.contains(entry) } }
        let executableEnd = executable.map { exe in
            core.files.filter { $0.path == exe.path }.map(\.range.upperBound).max() ?? 0
        }
        var mappings: [Mapping] = []
        var heapNamed = false
        for load in core.loads {
            let file = files[load.range.lowerBound].flatMap {
                $0.range == load.range ? $0 : nil
            }
            var path = file?.path ?? ""
            if path.hasSuffix(" (deleted)") { path = String(path.dropLast(10)) }
            if file == nil, load.range.lowerBound == core.auxiliaryVector[vdsoKey] {
                path = "[vdso]"
            } else if file == nil, !heapNamed, load.isWritable, let end = executableEnd,
                load.range.lowerBound >= end, load.range.lowerBound - end <= brkRandomization
            {
                path = "[heap]"
                heapNamed = true
            }
            let permissions =
                (load.isReadable ? "r" : "-") + (load.isWritable ? "w" : "-")
                + (load.isExecutable ? "x" : "-") + "p"
            let line =
                "\(String(load.range.lowerBound, radix: 16))-\(String(load.range.upperBound, radix: 16)) "
                + "\(permissions) \(String(file?.offset ?? 0, radix: 16)) 00:00 0 \(path)"
            if let mapping = Mapping(line: Substring(line)) { mappings.append(mapping) }
        }
        return mappings
    }
}
