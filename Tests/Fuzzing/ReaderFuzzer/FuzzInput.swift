import RetainGraphUtilities

/// One input of the reader fuzzer: which stage runs, over which blocks or metadata, after
/// which words of the captured copy were overwritten (and, for the whole analysis, which
/// region was cut short). Written to the corpus as text, one fact a line:
///
/// ```text
/// # a fake tcache whose first list loops
/// stage heap
/// write 0x5555555a1010 0xffff
/// write 0x5555555a1090 0x5555555a3000
/// ```
///
/// Addresses are the captured fixture's: the fuzzer starts it with address randomization off
/// (`setarch -R`), so that they are the same from run to run.
struct FuzzInput: Equatable {
    enum Stage: String, CaseIterable {
        /// glibc's heap walk: chunks, arenas, heaps, free lists.
        case heap
        /// One metadata word checked and its layout compiled through the mirror.
        case metadata
        /// A window of blocks read with their layouts, and its snapshot built.
        case scan
        /// The whole analysis an attach runs, with a mirror context of its own.
        case full
    }

    var stage: Stage
    var writes: [(address: UInt, value: UInt)] = []
    /// `metadata`: the word checked, and the block it is the first word of.
    var metadata: UInt = 0
    var sample: UInt = 0
    /// `scan`: the blocks read, by index in the unmutated walk.
    var window: Range<Int> = 0..<0
    /// `full`: a copied region (by its start) cut short at `cutEnd`.
    var cutStart: UInt = 0
    var cutEnd: UInt = 0
    /// What the input is meant to plant, for the corpus file's first line.
    var note = ""

    static func == (lhs: FuzzInput, rhs: FuzzInput) -> Bool {
        lhs.text == rhs.text
    }

    /// The input as corpus text.
    var text: String {
        var lines = note.isEmpty ? [] : ["# " + note]
        lines.append("stage \(stage.rawValue)")
        if stage == .metadata { lines.append("metadata \(hex(metadata)) \(hex(sample))") }
        if stage == .scan { lines.append("window \(window.lowerBound) \(window.upperBound)") }
        if cutStart != 0 { lines.append("cut \(hex(cutStart)) \(hex(cutEnd))") }
        lines += writes.map { "write \(hex($0.address)) \(hex($0.value))" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads corpus text; nil when a line makes no sense.
    init?(text: String) {
        stage = .heap
        var sawStage = false
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let first = words.first else { continue }
            if first.hasPrefix("#") {
                note = line.dropFirst(2).description
                continue
            }
            if first == "stage" {
                guard let stage = words.dropFirst().first.flatMap({ Stage(rawValue: String($0)) })
                else { return nil }
                self.stage = stage
                sawStage = true
                continue
            }
            let numbers = words.dropFirst().map { Self.number($0) }
            guard !numbers.contains(nil) else { return nil }
            let values = numbers.map { $0 ?? 0 }
            switch (first, values.count) {
            case ("metadata", 2): (metadata, sample) = (values[0], values[1])
            case ("window", 2):
                guard values[0] <= values[1] else { return nil }
                window = Int(values[0])..<Int(values[1])
            case ("cut", 2): (cutStart, cutEnd) = (values[0], values[1])
            case ("write", 2): writes.append((values[0], values[1]))
            default: return nil
            }
        }
        guard sawStage else { return nil }
    }

    init(stage: Stage) { self.stage = stage }

    private static func number(_ word: Substring) -> UInt? {
        word.hasPrefix("0x") ? UInt(word.dropFirst(2), radix: 16) : UInt(word)
    }
}

/// `0x…` in lower-case hexadecimal.
func hex(_ value: UInt) -> String { "0x" + String(value, radix: 16) }

/// The generator of input `index` of run `seed`: every input is reproducible from the two.
func inputGenerator(seed: UInt64, index: UInt64) -> SplitMix64 {
    var random = SplitMix64(seed: seed ^ (index &* 0x9E37_79B9_7F4A_7C15))
    _ = random.next()
    return random
}
