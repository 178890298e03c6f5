import ProcessAttach
import RetainGraphUtilities

/// Makes the fuzzer's inputs: structure-aware changes to a captured heap, each planted where
/// the reader looks (chunk headers, arena and heap links, tcaches, metadata words, counts,
/// reference counts), with values a corrupted or hostile process would leave there (loops back
/// to the structure itself, other structures, huge and negative counts, addresses at the edge
/// of the address space).
struct Mutator {
    let stages: ReaderStages
    /// Indices (in `stages.blocks`) of the blocks whose first word is accepted as metadata, or
    /// refused by the metadata check for a type it leads to (the fixture's planted ones).
    let objects: [Int]
    /// The distinct metadata words those blocks start with.
    let metadataWords: [UInt]
    /// Blocks large enough to hold a fake metadata (128 bytes).
    let scratch: [Int]
    /// Blocks of a tcache's size.
    let tcaches: [Int]
    /// How many blocks a scan input reads.
    static let window = 192

    init(stages: ReaderStages) {
        self.stages = stages
        var objects: [Int] = []
        var words: [UInt: Bool] = [:]
        for (index, block) in stages.blocks.enumerated() {
            guard let first = stages.word(at: block) else { continue }
            if words[first] == nil {
                // Metadata the check refuses (the fixture's planted generic arguments) is kept as
                // a template too: its copies are what reached libswiftRemoteMirror's aborts.
                words[first] =
                    stages.compileLayout(metadata: first, sample: block) != nil
                    || stages.wasRefusedByTheCheck(first)
            }
            if words[first] == true { objects.append(index) }
        }
        self.objects = objects
        metadataWords = words.filter(\.value).map(\.key).sorted()
        scratch = stages.blocks.indices.filter { stages.sizes[$0] >= 128 }
        tcaches = stages.blocks.indices.filter { stages.sizes[$0] == 0x288 }
    }

    /// The input numbered `index` of run `seed`, of `stage`.
    func input(seed: UInt64, index: UInt64, stage: FuzzInput.Stage) -> FuzzInput {
        var random = inputGenerator(seed: seed, index: index)
        var input = FuzzInput(stage: stage)
        switch stage {
        case .heap:
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                plantInHeap(&input, &random)
            }
        case .metadata:
            plantMetadata(&input, &random)
        case .scan:
            let start =
                objects.isEmpty ? 0 : objects[Int.random(in: 0..<objects.count, using: &random)]
            input.window = max(0, start - 8)..<min(stages.blocks.count, start + Self.window)
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                plantInObject(&input, &random, near: start)
            }
        case .full:
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0: plantInHeap(&input, &random)
                case 1: plantInObject(&input, &random, near: nil)
                default: plantMetadata(&input, &random)
                }
            }
            input.metadata = 0
            input.sample = 0
            if Int.random(in: 0..<4, using: &random) == 0,
                let range = stages.copiedRanges.randomElement(using: &random), range.count > 4096
            {
                input.cutStart = range.lowerBound
                input.cutEnd =
                    range.lowerBound + UInt.random(in: 8..<UInt(range.count), using: &random) & ~7
            }
        }
        return input
    }

    /// A value a hostile process would plant in a word at `address`.
    private func hostileValue(at address: UInt, _ random: inout SplitMix64) -> UInt {
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return 0
        case 1: return address  // a loop back to itself
        case 2: return UInt.max - UInt.random(in: 0..<64, using: &random)
        case 3: return UInt(1) << UInt.random(in: 20..<63, using: &random)
        case 4: return UInt.random(in: 0..<1024, using: &random)
        case 5: return stages.blocks.randomElement(using: &random) ?? 0
        case 6: return stages.chunks.randomElement(using: &random) ?? 0
        case 7: return metadataWords.randomElement(using: &random) ?? 0
        case 8: return (address >> 12) ^ (stages.chunks.randomElement(using: &random) ?? 0) &+ 16
        case 9: return (address >> 12) ^ address  // a safe-linked self loop
        case 10:
            return (stages.word(at: address) ?? 0) &+ UInt.random(in: 1...64, using: &random) &* 8
        default: return UInt.random(in: 0...UInt.max, using: &random)
        }
    }

    private func write(_ input: inout FuzzInput, _ address: UInt, _ value: UInt) {
        input.writes.append((address, value))
    }

    /// A chunk header, an arena's or heap's link, a tcache's count or entry, any block word.
    private func plantInHeap(_ input: inout FuzzInput, _ random: inout SplitMix64) {
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
            guard let chunk = stages.chunks.randomElement(using: &random) else { return }
            let sizes: [UInt] = [0, 16, 17, 32, 48, 0x290, 1 << 26, UInt.max & ~7]
            let size =
                Bool.random(using: &random)
                ? sizes.randomElement(using: &random) ?? 0
                : hostileValue(at: chunk + 8, &random)
            write(&input, chunk + 8, size | UInt.random(in: 0..<8, using: &random))
        case 1:
            guard let arena = stages.arenas.randomElement(using: &random) else { return }
            let offsets: [UInt] = [96, 2160, 2184] + (0..<10).map { 16 + 8 * $0 }
            let field = arena + (offsets.randomElement(using: &random) ?? 96)
            let value =
                Bool.random(using: &random)
                ? stages.arenas.randomElement(using: &random) ?? arena
                : hostileValue(at: field, &random)
            write(&input, field, value)
        case 2:
            guard let heap = stages.heaps.randomElement(using: &random) else { return }
            let base = heap.lowerBound & ~((64 << 20) - 1)
            let field = base + 8 * UInt.random(in: 0..<3, using: &random)
            let value =
                Bool.random(using: &random)
                ? stages.heaps.randomElement(using: &random)?.lowerBound ?? base
                : hostileValue(at: field, &random)
            write(&input, field, value)
        case 3:
            guard let index = tcaches.randomElement(using: &random) else { return }
            let tcache = stages.blocks[index]
            let field = tcache + 8 * UInt.random(in: 0..<80, using: &random)
            write(&input, field, hostileValue(at: field, &random))
        default:
            guard let index = stages.blocks.indices.randomElement(using: &random) else { return }
            let word = UInt.random(in: 0..<max(1, UInt(stages.sizes[index]) / 8), using: &random)
            let field = stages.blocks[index] + 8 * word
            write(&input, field, hostileValue(at: field, &random))
        }
    }

    /// A word of an object near block `near` (or anywhere): its metadata, reference count,
    /// counts, scale, bases, or any word.
    private func plantInObject(_ input: inout FuzzInput, _ random: inout SplitMix64, near: Int?) {
        guard !objects.isEmpty else { return }
        let index: Int
        if let near, Bool.random(using: &random) {
            index = min(
                stages.blocks.count - 1, near + Int.random(in: 0..<Self.window, using: &random))
        } else {
            index = objects.randomElement(using: &random) ?? 0
        }
        let block = stages.blocks[index]
        let words = max(2, UInt(stages.sizes[index]) / 8)
        let chosen: [UInt] = [0, 1, 2, 3, 4, 6, 7, UInt.random(in: 0..<words, using: &random)]
        let word = chosen.randomElement(using: &random) ?? 0
        var value = hostileValue(at: block + 8 * word, &random)
        if word == 1, Bool.random(using: &random) {
            value = (1 << 63) | (hostileValue(at: block, &random) >> 3)  // a side table
        } else if word == 4, Bool.random(using: &random) {
            value = UInt(UInt8.random(in: 0...64, using: &random))  // a hashed storage's scale
        }
        write(&input, block + 8 * word, value)
    }

    /// A fake metadata in a scratch block: a real metadata's words copied, some replaced
    /// (superclass, descriptor, sizes, kind), then checked and compiled.
    private func plantMetadata(_ input: inout FuzzInput, _ random: inout SplitMix64) {
        guard let host = scratch.randomElement(using: &random).map({ stages.blocks[$0] }),
            let original = metadataWords.randomElement(using: &random)
        else { return }
        let fake = host + 16
        for word in 0..<14 {
            write(&input, fake + 8 * UInt(word), stages.word(at: original + 8 * UInt(word)) ?? 0)
        }
        let kinds: [UInt] = [0, 0x200, 0x300, 0x400, 0x500, 0x501, 0x502]
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let word = UInt.random(in: 0..<14, using: &random)
            let value: UInt
            switch Int.random(in: 0..<5, using: &random) {
            case 0: value = fake  // superclass, argument or descriptor: itself
            case 1: value = kinds.randomElement(using: &random) ?? 0
            case 2 where word == 1: value = fake  // a superclass loop
            case 3: value = stages.blocks.randomElement(using: &random).map { $0 + 16 } ?? 0
            default: value = hostileValue(at: fake + 8 * word, &random)
            }
            write(&input, fake + 8 * word, value)
        }
        input.metadata = fake
        input.sample = stages.blocks.randomElement(using: &random) ?? host
        write(&input, input.sample, fake)
        input.note = "fake metadata from \(hex(original))"
    }
}
