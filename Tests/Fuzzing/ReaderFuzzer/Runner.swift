import ObjectGraph
import ProcessAttach

#if canImport(Glibc)
import Glibc
#endif

/// Runs inputs against the reader's stages and checks what must hold whatever the input: no
/// crash and no hang (the parent watches the child that runs them), text that reaches a
/// report escaped, and a stage that ends within its time budget (or says it gave up).
struct Runner {
    let stages: ReaderStages
    /// Each stage's time budget, in seconds.
    let seconds: Double
    /// Inputs run, by stage; inputs that gave up (their budget spent).
    var counts: [FuzzInput.Stage: Int] = [:]
    var gaveUp = 0

    /// Plants `input`, runs its stage, checks the oracles, and puts the words back. A broken
    /// oracle aborts the process (the parent records the input, as for a crash).
    mutating func run(_ input: FuzzInput) {
        var undo: [(UInt, UInt)] = []
        for (address, value) in input.writes {
            if let old = stages.write(value, at: address) { undo.append((address, old)) }
        }
        defer {
            for (address, old) in undo.reversed() { stages.write(old, at: address) }
        }
        counts[input.stage, default: 0] += 1
        switch input.stage {
        case .heap:
            let walk = stages.walkHeap(seconds: seconds)
            if walk.gaveUp { gaveUp += 1 }
            check(walk.limitations, input)
        case .metadata:
            if let layout = stages.compileLayout(metadata: input.metadata, sample: input.sample) {
                check([layout.name, layout.problem ?? ""], input)
            }
        case .scan:
            let window = input.window.clamped(to: 0..<stages.blocks.count)
            let result = stages.scan(
                blocks: Array(stages.blocks[window]), sizes: Array(stages.sizes[window]),
                seconds: seconds)
            if result.gaveUp { gaveUp += 1 }
            check(result.snapshot, input)
        case .full:
            let memory =
                input.cutStart == 0
                ? nil : stages.truncating(regionAt: input.cutStart, to: input.cutEnd)
            do {
                check(try stages.analyse(memory, seconds: seconds), input)
            } catch {
                guard case .gaveUp = error else {
                    fail("the analysis threw \(error)", input)
                }
                gaveUp += 1
            }
        }
    }

    private func check(_ snapshot: HeapSnapshot, _ input: FuzzInput) {
        let strings = snapshot.graph.strings
        check((0..<strings.count).map { strings[UInt32($0)] }, input)
        let roles = snapshot.graph.roles
        check((0..<roles.count).map { roles[UInt32($0)].description }, input)
        check(snapshot.limitations, input)
    }

    /// Every text that reaches a report is printable: no control character, no
    /// bidirectional override (``PrintableText``).
    private func check(_ texts: [String], _ input: FuzzInput) {
        for text in texts {
            for scalar in text.unicodeScalars {
                switch scalar.value {
                case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069:
                    fail("unescaped text reached a report: \(text.debugDescription)", input)
                default: continue
                }
            }
        }
    }

    private func fail(_ message: String, _ input: FuzzInput) -> Never {
        let text = "reader-fuzzer: oracle failed: \(message)\n\(input.text)"
        _ = text.withCString { write(2, $0, strlen($0)) }
        abort()
    }
}
