import ArgumentParser
import Foundation
import ProcessAttach
import RetainGraphUtilities

/// `retain-graph core FILE`: the attach's questions, asked of a core file.
struct Core: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read a core file: what was on the process's heap, and who held it.",
        discussion: """
            Reads an ELF core file (the kernel's, gdb's gcore, retain-graph dump's or a fork \
            dump of HeapDumps) and answers what attach answers of a running process. The \
            process's code and type metadata are read from the files the core names, which \
            must be the very files it ran (build ids are compared): on another machine, copy \
            them under a folder and give --sysroot.

            Examples:
              retain-graph core core.4242                          # counts and bytes by type
              retain-graph core core.4242 --who-holds App.Session  # the path from its holder
              retain-graph core core.4242 --cycles                 # cycles nothing reaches
              retain-graph core later.core --growth-from earlier.core  # what grew between
              retain-graph core core.4242 --sysroot /srv/cores/web-1   # read on another machine
              retain-graph core core.4242 --output heap.heapsnapshot   # for Chrome DevTools

            Exit codes: 0 success; 2 the core or a file it needs is unreadable, missing or \
            changed; 3 the heap could not be read (no remote mirror library).
            """)

    @Argument(help: "An ELF core file.")
    var file: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "An earlier core of the same program: show the types that grew since.",
            valueName: "earlier-core"))
    var growthFrom: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Read the process's files under this folder (a copy of the machine's files).",
            valueName: "dir"))
    var sysroot: String?

    @OptionGroup var questions: HeapQuestions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write the heap to this file: a graph file (read back with attach --input), or a "
                + ".heapsnapshot for Chrome DevTools."))
    var output: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The libswiftRemoteMirror.so of the process's Swift toolchain (default: found; its "
                + "version must match the core's runtime).", valueName: "path"))
    var remoteMirror: String?

    func run() throws {
        GlibcAllocator.returnLargeBlocksWhenFreed()
        let (core, heap) = try read(file)
        var sections = [core.summary, heap.summary]
        if !heap.limitations.isEmpty {
            sections.append("limits: " + heap.limitations.prefix(8).joined(separator: "\n        "))
        }
        if let growthFrom {
            let (earlier, before) = try read(growthFrom)
            guard earlier.executable == core.executable,
                earlier.memory.command == core.memory.command
            else {
                throw reportFailure(
                    CoreFileError.differentPrograms(earlier: growthFrom, later: file).description,
                    code: 2)
            }
            sections.append(HeapComparison(from: before, to: heap).text)
        }
        sections += questions.answers(heap, typeTable: growthFrom == nil)
        print(sections.joined(separator: "\n\n"))
        if let output {
            do {
                try heap.write(toFile: output)
            } catch {
                throw reportFailure(error.description, code: 2)
            }
        }
    }

    /// The core at `path` and its heap; a failure ends the command with its exit code.
    private func read(_ path: String) throws -> (ProcessCore, HeapSnapshot) {
        let core: ProcessCore
        do {
            core = try ProcessCore(contentsOfFile: path, sysroot: sysroot)
        } catch {
            throw reportFailure(error.description, code: 2)
        }
        do {
            return (core, try HeapSnapshot(core, remoteMirrorPath: remoteMirror))
        } catch let error as CoreFileError {
            throw reportFailure(error.description, code: 2)
        } catch {
            throw reportFailure("\(error)", code: 3)
        }
    }
}

/// Writes `message` to standard error; the exit code to end `core` or `dump` with.
func reportFailure(_ message: String, code: Int32) -> ExitCode {
    FileHandle.standardError.write(Data("retain-graph: \(message)\n".utf8))
    return ExitCode(code)
}
