import Foundation

/// Runs the inputs in forked children, a batch per child (a fork after the capture costs a
/// copy of page tables; the copy itself is shared), watches each child through a pipe (the
/// number of the input it starts, then its counts), and deals with a child that dies or hangs:
/// the input is run again alone, reduced to the writes that still make it fail, and kept in
/// the corpus.
struct BatchDriver {
    let options: FuzzOptions
    let mutator: Mutator
    var runner: Runner
    private(set) var done: [FuzzInput.Stage: Int] = [:]
    private(set) var gaveUp = 0
    private(set) var crashes = 0
    private(set) var hangs = 0
    /// Children killed by an abort or fault inside libswiftRemoteMirror that its guard did not
    /// contain: failures (since the metadata check keeps planted types from the library and its
    /// guard contains what gets through, none is expected).
    private(set) var mirrorAborts = 0
    /// Inputs on which the library failed and its guard contained it (the analysis went on
    /// and said so): not failures of the reader, counted apart because each is a type the
    /// metadata check let through. The first few are listed, to be replayed.
    private(set) var containedMirrorFailures = 0
    private var keptMirrorKinds = Set<String>()
    /// Where a child's standard error goes (read when it dies).
    let errorLog = "/tmp/reader-fuzzer-\(getpid()).err"
    private(set) var peakGrowth = 0
    private(set) var started = ContinuousClock.now

    init(options: FuzzOptions, mutator: Mutator, runner: Runner) {
        self.options = options
        self.mutator = mutator
        self.runner = runner
    }

    /// How a child ended.
    enum Outcome {
        /// Every input ran: counts by stage, gave up, the inputs on which the mirror failed
        /// and was contained, the child's peak memory (KiB).
        case finished(counts: [Int], gaveUp: Int, contained: [UInt64], peakKiB: Int)
        /// Died or hung while running input `index` (nil: before the first).
        case failed(index: UInt64?, reason: String)
    }

    /// Runs `inputs` (numbers, made by `make`) in one child.
    func runChild(_ inputs: [UInt64], make: (UInt64) -> FuzzInput) -> Outcome {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return .failed(index: nil, reason: "pipe failed") }
        let child = fork()
        if child == 0 {
            close(pipeEnds[0])
            let log = open(errorLog, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            if log >= 0 { dup2(log, 2) }
            reportFaultsInsideTheMirror(findLibrary: false)
            var runner = self.runner
            // The guard that contains the library's failures goes in front of that report.
            runner.stages.guardTheMirror()
            var contained: [UInt64] = []
            for index in inputs {
                var number = index
                _ = write(pipeEnds[1], &number, 8)
                let before = runner.stages.mirrorFailures
                runner.run(make(index))
                if runner.stages.mirrorFailures != before { contained.append(index) }
            }
            let counts = FuzzInput.Stage.allCases.map { runner.counts[$0] ?? 0 }
            // The first 16 contained inputs' numbers, then their count.
            let listed = Array(contained.prefix(16))
            var record: [UInt64] =
                [UInt64.max] + counts.map(UInt64.init)
                + [UInt64(runner.gaveUp), UInt64(contained.count)]
                + listed + [UInt64](repeating: UInt64.max, count: 16 - listed.count)
                + [peakKiB()]
            _ = write(pipeEnds[1], &record, 8 * record.count)
            _exit(0)
        }
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        var last: UInt64?
        while true {
            var descriptor = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(options.hang * 1000)) > 0 else {
                kill(child, SIGKILL)
                waitpid(child, nil, 0)
                return .failed(index: last, reason: "hang: no progress in \(options.hang) s")
            }
            var word: UInt64 = 0
            guard read(pipeEnds[0], &word, 8) == 8 else { break }
            guard word == UInt64.max else {
                last = word
                continue
            }
            let stages = FuzzInput.Stage.allCases.count
            var rest = [UInt64](repeating: 0, count: stages + 2 + 16 + 1)
            let expected = 8 * rest.count
            guard read(pipeEnds[0], &rest, expected) == expected else { break }
            waitpid(child, nil, 0)
            let listed = rest[(stages + 2)..<(stages + 18)].filter { $0 != UInt64.max }
            return .finished(
                counts: rest.prefix(stages).map { Int($0) }, gaveUp: Int(rest[stages]),
                contained: Array(listed)
                    + [UInt64](
                        repeating: UInt64.max, count: Int(rest[stages + 1]) - listed.count),
                peakKiB: Int(rest[rest.count - 1]))
        }
        var status: Int32 = 0
        waitpid(child, &status, 0)
        let signal = status & 0x7F
        return .failed(
            index: last,
            reason: signal != 0 ? "killed by signal \(signal)" : "exited with \(status >> 8)")
    }

    /// What the last child that failed said of libswiftRemoteMirror: that its demangler
    /// aborted, or that it faulted inside the library; nil when it failed in the reader.
    func mirrorFailure() -> String? {
        let log = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
        if log.contains("fault inside libswiftRemoteMirror") {
            return "faulted inside libswiftRemoteMirror"
        }
        if log.contains("swift/lib/Demangling/") {
            return "libswiftRemoteMirror's demangler aborted"
        }
        return nil
    }

    /// The peak resident memory of this process (`VmHWM`), in KiB.
    private func peakKiB() -> UInt64 {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return UInt64(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// The resident memory of this process (`VmRSS`) now, in KiB.
    private func residentKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Runs the corpus's inputs, each in its own child; returns how many failed.
    mutating func replayCorpus() -> Int {
        guard let corpus = options.corpus,
            let names = try? FileManager.default.contentsOfDirectory(atPath: corpus)
        else { return 0 }
        var failures = 0
        // `mirror-abort-…` inputs aborted inside libswiftRemoteMirror before the metadata check
        // kept planted types from it: replayed as regressions like the others.
        for name in names.sorted() where name.hasSuffix(".txt") {
            let path = corpus + "/" + name
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                let input = FuzzInput(text: text)
            else { continue }
            if case .failed(_, let reason) = runChild([0], make: { _ in input }) {
                let kind = mirrorFailure().map { ": \($0)" } ?? ""
                say("reader-fuzzer: corpus \(name) fails again: \(reason)\(kind)")
                failures += 1
            }
        }
        return failures
    }

    /// Runs `options.inputs` inputs, batch by batch; returns how many failed.
    mutating func fuzz() -> Int {
        started = .now
        let baseline = residentKiB()
        let options = self.options
        let mutator = self.mutator
        let make = { (index: UInt64) in
            mutator.input(seed: options.seed, index: index, stage: options.stage(index: index))
        }
        var next: UInt64 = 0
        var failures = 0
        while next < UInt64(options.inputs) {
            let end = min(UInt64(options.inputs), next + UInt64(options.batch))
            switch runChild(Array(next..<end), make: make) {
            case .finished(let counts, let gave, let contained, let peak):
                for (stage, count) in zip(FuzzInput.Stage.allCases, counts) {
                    done[stage, default: 0] += count
                }
                gaveUp += gave
                for index in contained {
                    containedMirrorFailures += 1
                    if index != UInt64.max, containedMirrorFailures <= 16 {
                        say(
                            "reader-fuzzer: input \(index) of seed \(options.seed): "
                                + "libswiftRemoteMirror failed, contained (a type the metadata "
                                + "check let through)")
                    }
                }
                peakGrowth = max(peakGrowth, (peak - baseline) * 1024)
                if end / 100_000 != next / 100_000 {
                    say(
                        "reader-fuzzer: \(end) inputs, \(crashes) crashed, \(hangs) hung, "
                            + "\(mirrorAborts) mirror aborts, "
                            + "\(containedMirrorFailures) contained, "
                            + "\(Int((ContinuousClock.now - started) / .seconds(1))) s"
                    )
                }
                next = end
            case .failed(let index, let reason):
                let failed = index ?? next
                let log = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
                failures += 1
                if let kind = mirrorFailure() {
                    // The library's own abort or fault, past the check and the guard: a
                    // failure, kept once of each kind.
                    mirrorAborts += 1
                    say(
                        "reader-fuzzer: input \(failed) of seed \(options.seed): \(reason): \(kind)"
                    )
                    if keptMirrorKinds.insert(kind).inserted {
                        keep(
                            make(failed), index: failed, batchStart: next,
                            reason: "\(reason): \(kind)", prefix: "mirror-abort")
                    }
                } else {
                    if reason.hasPrefix("hang") { hangs += 1 } else { crashes += 1 }
                    say("reader-fuzzer: input \(failed) of seed \(options.seed): \(reason)")
                    say(log.split(separator: "\n").prefix(8).joined(separator: "\n"))
                    keep(make(failed), index: failed, batchStart: next, reason: reason)
                }
                for skipped in next..<failed {
                    done[options.stage(index: skipped), default: 0] += 1
                }
                next = failed + 1
            }
        }
        return failures
    }
}
