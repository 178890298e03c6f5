import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether the process's other threads are running, read from `/proc/self/task/*/stat` (the
/// state field: `R` while a thread runs or waits for a processor).
enum ThreadActivity {
    /// Waits until no other thread runs, three looks 10 ms apart in a row, or until `seconds`
    /// have passed.
    ///
    /// - Parameter seconds: The longest wait.
    /// - Returns: Whether the threads settled (false when the time ran out, or `/proc` could
    ///   not be read).
    @discardableResult
    static func waitUntilOthersSleep(atMost seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(max(seconds, 0))
        var quietLooks = 0
        while quietLooks < 3 {
            guard let running = runningOthers() else { return false }
            quietLooks = running == 0 ? quietLooks + 1 : 0
            if quietLooks == 3 { break }
            guard Date() < deadline else { return false }
            usleep(10_000)
        }
        return true
    }

    /// The number of the process's threads other than the calling one that are running; nil
    /// when `/proc/self/task` cannot be read.
    static func runningOthers() -> Int? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        else { return nil }
        // `/proc/thread-self` names the calling thread: `<pid>/task/<tid>`.
        let own =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?
            .split(separator: "/").last.map(String.init) ?? ""
        var running = 0
        for task in tasks where task != own {
            guard
                let stat = try? String(
                    contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8)
            else { continue }  // the thread ended meanwhile
            // `tid (name) S …`: the state follows the name's closing parenthesis, which the name
            // itself may contain.
            guard let close = stat.lastIndex(of: ")") else { continue }
            let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
            if state == "R" { running += 1 }
        }
        return running
    }
}
