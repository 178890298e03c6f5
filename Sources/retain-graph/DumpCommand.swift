import ArgumentParser
import Foundation
import ProcessAttach

/// `retain-graph dump PID FILE`: the attach's stop, written as an ELF core.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a running Swift process's memory as a core file, to read later.",
        discussion: """
            Stops every thread of PID as attach does (bounded by --max-stop), copies its \
            writable memory, lets it go, then writes the copy as an ELF core that gdb and \
            retain-graph core read: a segment per mapping, registers and names of every \
            thread, the files it mapped. The process is stopped only for the copy.

            Example:
              retain-graph dump 4242 web.core && retain-graph core web.core --who-holds App.Session

            Exit codes: 0 success; 2 the file could not be written; 3 the attach failed (the \
            target runs on).
            """)

    @Argument(help: "The process id of a running Swift program.")
    var pid: Int32

    @Argument(help: "The core file to write (mode 0600).")
    var file: String

    @Option(name: .long, help: "The longest the target may stay stopped (default 5s).")
    var maxStop: String = "5s"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The libswiftRemoteMirror.so of the target's Swift toolchain (checked against the "
                + "target's runtime before the stop).", valueName: "path"))
    var remoteMirror: String?

    func validate() throws { _ = try parseDuration(maxStop, option: "--max-stop") }

    func run() throws {
        let options = AttachOptions(
            maximumStop: (try? parseDuration(maxStop, option: "")) ?? .seconds(5),
            remoteMirrorPath: remoteMirror)
        let memory: ProcessMemory
        let stop: Duration
        let auxiliaryVector =
            (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/auxv")))
            .map(Array.init) ?? []
        let parent =
            (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))
            .flatMap { $0.split(separator: ")").last?.split(separator: " ").dropFirst().first }
            .flatMap { Int32($0) } ?? 0
        do {
            let process = try StoppedProcess(processID: pid, options: options)
            memory = try process.captureMemory()
            stop = process.resume()
        } catch {
            throw reportFailure(error.description, code: 3)
        }
        let started = ContinuousClock.now
        let result: CoreWriteResult
        do {
            result = try memory.writeCore(
                toFile: file, auxiliaryVector: auxiliaryVector, parentID: parent)
        } catch {
            throw reportFailure(error.description, code: 2)
        }
        print(
            "process \(pid) (\(memory.command)): stopped \(stop.shortText), "
                + "\(memory.threads.count) threads; wrote \(file) in "
                + "\((ContinuousClock.now - started).shortText): "
                + "\(result.segments) segments, \(result.writtenBytes) bytes of memory")
    }
}

extension Duration {
    /// `12 ms`, `1.25 s`.
    fileprivate var shortText: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return seconds < 1 ? "\(Int(seconds * 1000)) ms" : String(format: "%.2f s", seconds)
    }
}
