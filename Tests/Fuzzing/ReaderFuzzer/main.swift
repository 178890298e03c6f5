// The heap reader's fuzzer (issue 32): captures a real fixture once (attach-hostile, started
// with address randomization off), then runs inputs (FuzzInput: words of the copy overwritten,
// one stage of the reader run) in forked children, batch by batch, so that a crash or a hang
// is caught, reproduced alone, reduced and kept in the corpus.
//
//   reader-fuzzer --fixture PATH [--inputs N] [--seed S] [--batch N] [--seconds S]
//                 [--corpus DIR] [--weights heap:W,metadata:W,scan:W,full:W]
//   reader-fuzzer --fixture PATH --replay FILE      one input, in this process
//
// Every input is a function of (seed, index): a run is reproduced by its seed. The corpus's
// inputs run first, each in its own child: they are the regression tests of what was found.
import Foundation
import ProcessAttach
import RetainGraphUtilities

let options = FuzzOptions(arguments: Array(CommandLine.arguments.dropFirst()))
let memory: ProcessMemory
do {
    memory = try captureFixture(options.fixture)
} catch {
    complain("reader-fuzzer: could not capture the fixture: \(error)\n")
    exit(2)
}
let stages: ReaderStages
do {
    stages = try ReaderStages(memory: memory, remoteMirrorPath: nil)
} catch {
    complain("reader-fuzzer: \(error.description)\n")
    exit(2)
}
let mutator = Mutator(stages: stages)
reportFaultsInsideTheMirror(findLibrary: true)
var runner = Runner(stages: stages, seconds: options.seconds)
say(
    "reader-fuzzer: captured \(PrintableText.escaped(memory.command)) (\(memory.copiedBytes >> 20) MiB copied): "
        + "\(stages.blocks.count) blocks, \(mutator.objects.count) objects, "
        + "\(mutator.metadataWords.count) metadata words, \(stages.arenas.count) arenas; seed "
        + "\(options.seed)")

if let replay = options.replay {
    guard let text = try? String(contentsOfFile: replay, encoding: .utf8),
        let input = FuzzInput(text: text)
    else {
        complain("reader-fuzzer: \(replay) is not an input\n")
        exit(2)
    }
    runner.run(input)
    say("reader-fuzzer: \(replay): no crash, no broken oracle")
    exit(0)
}

var driver = BatchDriver(options: options, mutator: mutator, runner: runner)
let failures = driver.replayCorpus() + driver.fuzz()
say(driver.summary(copiedBytes: memory.copiedBytes))
exit(failures == 0 ? 0 : 1)
