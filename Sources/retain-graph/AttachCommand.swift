import ArgumentParser
import Foundation
import HeapExport
import ProcessAttach
import RetainGraphUtilities
import Synchronization

/// Set by SIGINT while an attach runs: the target is let go at the next step, then the tool
/// exits with 130.
private let interrupted = Atomic<Bool>(false)

struct Attach: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Attach to a running Swift process: what is on its heap, and who holds it.",
        discussion: """
            Stops every thread of PID with ptrace (bounded by --max-stop), copies its writable \
            memory, lets it go, then finds its live Swift objects, their references and what \
            holds them. Nothing is injected; the program needs no RetainGraph code. Needs root \
            or CAP_SYS_PTRACE (or the same user and kernel.yama.ptrace_scope 0).

            Examples:
              retain-graph attach 4242                          # counts and bytes by type
              retain-graph attach 4242 --who-holds App.Session  # the path from its holder
              retain-graph attach 4242 --cycles                 # cycles nothing reaches
              retain-graph attach 4242 --growth 30s             # what grew in 30 seconds
              retain-graph attach 4242 --tasks                  # every Task: where it waits
              retain-graph attach 4242 --output heap.json       # save; read back with --input
              retain-graph attach 4242 --output heap.heapsnapshot  # for Chrome DevTools

            --cycles lists every strong reference cycle nothing reaches, as the whole-suite \
            check does: no holder (global, stack, Task, timer, C code), no weak or unowned \
            reference from a reachable object, every retain count explained by the heap. \
            Groups of one shape (the same types held by the same references), the most \
            cycles first, each titled by its types with one sample cycle (⇢ conservative).

            A heap read only in part (glibc's heap not walked whole: an arena or a heap not \
            found) is an error, not an answer: objects would be missing with nothing to say \
            so. --accept-partial shows what was read anyway, under a warning.

            Exit codes: 0 success; 2 unreadable input; 3 the attach failed (the target runs \
            on); 4 the heap was read only in part (see --accept-partial); 130 interrupted (the \
            target was let go first).
            """)

    @Argument(help: "The process id of a running Swift program.")
    var pid: Int32?

    @OptionGroup var questions: HeapQuestions

    @Flag(
        name: .long,
        help: "Show what was read even when the heap could not be read whole (exit 4 without).")
    var acceptPartial = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Attach twice this long apart (30s, 500ms, 2m) and show the types that grew; "
                + "press Enter to take the second snapshot early."))
    var growth: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write the heap to this file: a graph file (read back with --input, or with "
                + "retain-graph heap), or a .heapsnapshot for Chrome DevTools."))
    var output: String?

    @Option(
        name: .long, help: "Read a graph file written with --output instead of attaching.")
    var input: String?

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Show every Task: its state, where it waits (function and line), what it awaits, "
                + "its actor and what it keeps alive, grouped by async backtrace."))
    var tasks = false

    @Option(name: .long, help: "The longest the target may stay stopped (default 5s).")
    var maxStop: String = "5s"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The libswiftRemoteMirror.so of the target's Swift toolchain (default: the one "
                + "bundled with this tool, else this toolchain's; its version must match).",
            valueName: "path"))
    var remoteMirror: String?

    func validate() throws {
        guard (pid == nil) != (input == nil) else {
            throw ValidationError("give either a PID or --input FILE")
        }
        if input != nil, growth != nil {
            throw ValidationError("--growth needs a live process")
        }
        if tasks, input != nil || growth != nil {
            throw ValidationError("--tasks needs a live process, without --growth")
        }
        if questions.cycles, tasks || growth != nil {
            throw ValidationError("--cycles reads one heap: not with --tasks or --growth")
        }
        _ = try parseDuration(maxStop, option: "--max-stop")
        if let growth { _ = try parseDuration(growth, option: "--growth") }
    }

    func run() throws {
        GlibcAllocator.returnLargeBlocksWhenFreed()
        if tasks {
            let (heap, dump) = try attach(withTasks: true)
            emit(heap.summary + "\n\n" + (dump?.text() ?? ""))
            guard let output, let dump else { return }
            do {
                try heap.write(toFile: output, tasks: dump)
            } catch {
                fail(error.description, code: 2)
            }
            return
        }
        let heap: HeapSnapshot
        if let input {
            do {
                heap = try HeapSnapshot(contentsOfFile: input)
            } catch {
                fail(error.description, code: 2)
            }
        } else {
            heap = try attach()
        }
        var sections = [heap.summary]
        if let warning = partialReadWarning(heap) { sections.append(warning) }
        if let growth, pid != nil {
            let interval = try parseDuration(growth, option: "--growth")
            emit(sections.joined(separator: "\n\n"))
            emit("\nfirst snapshot taken; the second in \(growth) (press Enter to take it now)")
            waitOrEnter(interval)
            let later = try attach()
            var text = "\n" + later.summary
            if let warning = partialReadWarning(later) { text += "\n\n" + warning }
            emit(text + "\n\n" + HeapComparison(from: heap, to: later).text)
            try write(later)
            return
        }
        if !heap.limitations.isEmpty {
            sections.append("limits: " + heap.limitations.prefix(8).joined(separator: "\n        "))
        }
        sections += questions.answers(heap)
        emit(sections.joined(separator: "\n\n"))
        try write(heap)
    }

    /// The heap, its tasks named as holders by where they wait when the remote mirror reads
    /// tasks (one stop either way).
    private func attach() throws -> HeapSnapshot {
        let read = try attach(withTasks: true, requiringTasks: false)
        return read.tasks.map { read.heap.namingTaskHolders($0) } ?? read.heap
    }

    private func attach(withTasks: Bool, requiringTasks: Bool = true) throws -> (
        heap: HeapSnapshot, tasks: TaskDump?
    ) {
        guard let pid else { fail("no process id", code: 2) }
        var options = AttachOptions(
            maximumStop: (try? parseDuration(maxStop, option: "")) ?? .seconds(5),
            remoteMirrorPath: remoteMirror)
        options.isCancelled = { interrupted.load(ordering: .relaxed) }
        signal(SIGINT) { _ in interrupted.store(true, ordering: .relaxed) }
        defer { signal(SIGINT, SIG_DFL) }
        let read: (heap: HeapSnapshot, tasks: TaskDump?)
        do {
            if withTasks {
                read = try HeapSnapshot.captureWithTasks(processID: pid, options: options)
            } else {
                read = (try HeapSnapshot.capture(processID: pid, options: options), nil)
            }
        } catch .remoteMirrorUnavailable where withTasks && !requiringTasks {
            // A library that cannot read tasks: the heap alone, its tasks unnamed.
            return try attach(withTasks: false)
        } catch {
            if case .cancelled = error { fail(error.description, code: 130) }
            fail(error.description, code: 3)
        }
        if interrupted.load(ordering: .relaxed) { fail("interrupted", code: 130) }
        return read
    }

    private func write(_ heap: HeapSnapshot) throws {
        guard let output else { return }
        do {
            let bytes = try heap.write(toFile: output)
            let kind =
                output.hasSuffix(".heapsnapshot")
                ? "a .heapsnapshot for Chrome DevTools (Memory panel, Load)"
                : "a graph file (read back with --input, or retain-graph heap)"
            emit(
                "wrote \(output): \(heap.objectCount) objects, "
                    + "\(ByteCount.description(bytes)), \(kind)")
        } catch {
            fail(error.description, code: 2)
        }
    }

    /// The warning for a heap read only in part, or nil for a whole one; without
    /// --accept-partial, a partial read ends the tool with exit code 4 instead.
    private func partialReadWarning(_ heap: HeapSnapshot) -> String? {
        guard let walk = heap.statistics.heapWalk, !walk.isComplete else { return nil }
        let problems = walk.problems.map { "  " + $0.description }.joined(separator: "\n")
        guard acceptPartial else {
            fail(
                "the heap was read only in part: objects may be missing, and counts, paths and "
                    + "growth would be wrong without a sign of it:\n\(problems)\n(--accept-partial "
                    + "shows what was read anyway)", code: 4)
        }
        return "WARNING: the heap was read only in part; objects may be missing:\n\(problems)"
    }

    /// Sleeps for `interval`, or until a line is typed on standard input.
    private func waitOrEnter(_ interval: Duration) {
        let deadline = ContinuousClock.now + interval
        var watchingInput = true
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + 1)
            guard watchingInput else {
                poll(nil, 0, min(milliseconds, 1000))
                continue
            }
            var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, min(milliseconds, 1000)) > 0 else { continue }
            var byte: UInt8 = 0
            if read(0, &byte, 1) == 1 {
                if byte == UInt8(ascii: "\n") { return }
            } else {
                watchingInput = false  // end of input: only the clock decides
            }
        }
    }
}

/// Writes `text` and a newline to standard output at once (no buffering: `--growth` prompts
/// must reach a pipe before the wait).
private func emit(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Prints `message` to standard error and exits with `code`.
private func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("retain-graph: \(message)\n".utf8))
    Foundation.exit(code)
}

/// `30s`, `500ms`, `2m`, `1.5s` → a duration.
func parseDuration(_ text: String, option: String) throws -> Duration {
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
        if let value = Double(text.dropLast(suffix.count)), value >= 0, value < 1e7 {
            return .milliseconds(Int64(value * scale * 1000))
        }
    }
    if let value = Double(text), value >= 0, value < 1e7 {
        return .milliseconds(Int64(value * 1000))
    }
    throw ValidationError("\(option): \(text) is not a duration (30s, 500ms, 2m)")
}
