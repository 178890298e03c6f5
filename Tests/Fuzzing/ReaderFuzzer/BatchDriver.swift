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
    /// Children that aborted or faulted inside libswiftRemoteMirror (its demangler's fatal
    /// assertion, or a fault naming a type built from planted metadata): a known limit of the
    /// library, counted apart.
    private(set) var mirrorAborts = 0
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
        /// Every input ran: counts by stage, gave up, the child's peak memory (KiB).
        case finished(counts: [Int], gaveUp: Int, peakKiB: Int)
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
            for index in inputs {
                var number = index
                _ = write(pipeEnds[1], &number, 8)
                runner.run(make(index))
            }
            let counts = FuzzInput.Stage.allCases.map { runner.counts[$0] ?? 0 }
            var record: [UInt64] =
                [UInt64.max] + counts.map(UInt64.init) + [UInt64(runner.gaveUp), peakKiB()]
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
            var rest = [UInt64](repeating: 0, count: FuzzInput.Stage.allCases.count + 2)
            let expected = 8 * rest.count
            guard read(pipeEnds[0], &rest, expected) == expected else { break }
            waitpid(child, nil, 0)
            return .finished(
                counts: rest.dropLast(2).map { Int($0) }, gaveUp: Int(rest[rest.count - 2]),
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
        // `mirror-abort-…` inputs abort inside libswiftRemoteMirror: kept to reproduce it, not
        // replayed as regressions of the reader.
        for name in names.sorted() where name.hasSuffix(".txt") && !name.hasPrefix("mirror-abort") {
            let path = corpus + "/" + name
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                let input = FuzzInput(text: text)
            else { continue }
            if case .failed(_, let reason) = runChild([0], make: { _ in input }) {
                if let kind = mirrorFailure() {
                    say("reader-fuzzer: corpus \(name): \(kind) (known)")
                    continue
                }
                say("reader-fuzzer: corpus \(name) fails again: \(reason)")
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
            case .finished(let counts, let gave, let peak):
                for (stage, count) in zip(FuzzInput.Stage.allCases, counts) {
                    done[stage, default: 0] += count
                }
                gaveUp += gave
                peakGrowth = max(peakGrowth, (peak - baseline) * 1024)
                if end / 100_000 != next / 100_000 {
                    say(
                        "reader-fuzzer: \(end) inputs, \(crashes) crashed, \(hangs) hung, "
                            + "\(mirrorAborts) mirror aborts, \(Int((ContinuousClock.now - started) / .seconds(1))) s"
                    )
                }
                next = end
            case .failed(let index, let reason):
                let failed = index ?? next
                let log = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
                if let kind = mirrorFailure() {
                    // The library's own abort or fault: kept once of each kind, not a failure
                    // of the reader.
                    mirrorAborts += 1
                    if keptMirrorKinds.insert(kind).inserted {
                        keep(
                            make(failed), index: failed, batchStart: next,
                            reason: "\(reason): \(kind)", prefix: "mirror-abort")
                    }
                } else {
                    failures += 1
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
