import Foundation

extension BatchDriver {
    /// Keeps a failing input in the corpus: reduced (writes dropped one at a time while it
    /// still fails alone) when it fails alone; as it is, with the batch it needs, otherwise.
    func keep(
        _ input: FuzzInput, index: UInt64, batchStart: UInt64, reason: String,
        prefix: String = "crash"
    ) {
        var reduced = input
        reduced.note = "\(reason) (seed \(options.seed), input \(index))"
        if case .failed = runChild([0], make: { _ in reduced }) {
            var position = 0
            while position < reduced.writes.count {
                var smaller = reduced
                smaller.writes.remove(at: position)
                if case .failed = runChild([0], make: { _ in smaller }) {
                    reduced = smaller
                } else {
                    position += 1
                }
            }
        } else {
            reduced.note += "; fails only after inputs \(batchStart)..<\(index) of its seed"
        }
        guard let corpus = options.corpus else {
            say(reduced.text)
            return
        }
        let path = "\(corpus)/\(prefix)-\(options.seed)-\(index).txt"
        _ = FileManager.default.createFile(atPath: path, contents: Data(reduced.text.utf8))
        say("reader-fuzzer: kept \(path)")
    }

    /// One line: inputs by stage, rate, what gave up, what failed, memory.
    func summary(copiedBytes: Int) -> String {
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        let total = done.values.reduce(0, +)
        let stages = FuzzInput.Stage.allCases.map { "\($0.rawValue) \(done[$0] ?? 0)" }
        let ratio = Double(peakGrowth) / Double(max(copiedBytes, 1))
        return "reader-fuzzer: \(total) inputs (\(stages.joined(separator: ", "))) in "
            + "\(String(format: "%.1f", seconds)) s, \(Int(Double(total) / max(seconds, 0.001))) "
            + "inputs/s; \(gaveUp) gave up within their budget; \(crashes) crashed, \(hangs) hung, "
            + "\(mirrorAborts) aborted inside libswiftRemoteMirror past its guard; "
            + "\(containedMirrorFailures) failures of libswiftRemoteMirror contained; "
            + "peak memory growth \(peakGrowth >> 10) KiB for an input of \(copiedBytes >> 10) "
            + "KiB (\(String(format: "%.2f", ratio))x); seed \(options.seed)"
    }
}
