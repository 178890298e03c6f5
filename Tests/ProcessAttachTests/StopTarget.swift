import Foundation
import Testing

/// The stop tests' target, `attach-stop-target`: busy, blocked and thread-creating threads, and
/// a counter file that shows it makes progress.
final class StopTarget {
    let running: RunningTarget
    /// Two little-endian UInt64: ticks (about one a millisecond), SIGUSR1s handled.
    let counterPath: String

    var pid: Int32 { running.pid }

    /// Starts the target with `arguments` after its counter file.
    init(_ arguments: [String] = [], environment: [String: String] = [:]) throws {
        counterPath =
            NSTemporaryDirectory() + "retain-graph-stop-\(getpid())-\(UUID().uuidString)"
        running = try AttachTargets.start(
            "attach-stop-target", [counterPath] + arguments, environment: environment)
    }

    deinit {
        running.stop()
        try? FileManager.default.removeItem(atPath: counterPath)
        try? FileManager.default.removeItem(atPath: counterPath + ".child")
    }

    /// The counter file's two words, or nil when it cannot be read yet.
    static func counter(at path: String) -> (ticks: UInt64, signals: UInt64)? {
        guard let data = FileManager.default.contents(atPath: path), data.count >= 16 else {
            return nil
        }
        let words = data.prefix(16).withUnsafeBytes {
            (
                $0.loadUnaligned(as: UInt64.self),
                $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            )
        }
        return (UInt64(littleEndian: words.0), UInt64(littleEndian: words.1))
    }

    /// Each thread of process `pid` with its state letter (`R`, `S`, `t`, `T`, `Z`…).
    static func threadStates(of pid: Int32) -> [Int32: Character] {
        let tasks =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var states: [Int32: Character] = [:]
        for task in tasks {
            guard let tid = Int32(task),
                let stat = try? String(
                    contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")"),
                let state = stat[stat.index(after: close)...].first(where: { $0 != " " })
            else { continue }
            states[tid] = state
        }
        return states
    }

    /// The `TracerPid` of process `pid` (its main thread), or nil when it is gone.
    static func tracer(of pid: Int32) -> Int32? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("TracerPid:") }
        return line.flatMap { Int32($0.split(separator: "\t").last ?? "") }
    }

    /// The `TracerPid`s of process `pid`'s threads, without 0 (a thread nothing traces): a
    /// tool that has seized some of them so far traces those only, and thread IDs need not
    /// grow with creation (past `pid_max` they start again from the bottom, so the main thread
    /// need not be the first seized).
    static func tracers(of pid: Int32) -> Set<Int32> {
        var tracers = Set<Int32>()
        let threads =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for tid in threads {
            guard
                let status = try? String(
                    contentsOfFile: "/proc/\(pid)/task/\(tid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("TracerPid:") }
                ),
                let tracer = Int32(line.split(separator: "\t").last ?? ""), tracer != 0
            else { continue }
            tracers.insert(tracer)
        }
        return tracers
    }

    /// Polls, until `deadline` from now, for every thread of `pid` to be out of a stop (no `t`
    /// or `T`, or, with `groupStopped`, every live thread in a group stop `T`) and nothing to
    /// trace it. Returns whether that held, and the states last seen.
    static func waitUntil(
        _ pid: Int32, groupStopped: Bool = false, within deadline: Duration
    ) -> (held: Bool, states: [Int32: Character]) {
        let end = ContinuousClock.now + deadline
        while true {
            let states = threadStates(of: pid)
            let live = states.values.filter { $0 != "Z" && $0 != "X" }
            let held =
                !live.isEmpty && tracer(of: pid) == 0
                && (groupStopped
                    ? live.allSatisfy { $0 == "T" } : !live.contains { $0 == "t" || $0 == "T" })
            if held || ContinuousClock.now >= end { return (held, states) }
            usleep(500)
        }
    }

    /// Whether the counter at `path` goes past its current value within `deadline`.
    static func advances(_ path: String, within deadline: Duration = .seconds(30)) -> Bool {
        let start = counter(at: path)?.ticks ?? 0
        let end = ContinuousClock.now + deadline
        while ContinuousClock.now < end {
            if let now = counter(at: path)?.ticks, now > start { return true }
            usleep(1000)
        }
        return false
    }

    /// Polls until the counter at `path` says `count` SIGUSR1s were handled.
    static func handled(_ count: UInt64, at path: String, within deadline: Duration = .seconds(30))
        -> Bool
    {
        let end = ContinuousClock.now + deadline
        while ContinuousClock.now < end {
            if counter(at: path)?.signals == count { return true }
            usleep(1000)
        }
        return false
    }

    /// Sends `signal` to thread `tid` of process `pid` (`tgkill`, which Swift's Glibc module
    /// does not declare: looked up with `dlsym`).
    static func signalThread(_ pid: Int32, _ tid: Int32, _ signal: Int32) -> Bool {
        typealias Tgkill = @convention(c) (Int32, Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "tgkill") else { return false }
        return unsafeBitCast(symbol, to: Tgkill.self)(pid, tid, signal) == 0
    }
}
