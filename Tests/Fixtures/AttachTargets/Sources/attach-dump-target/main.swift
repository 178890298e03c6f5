// The core tests' program (issue 33): sessions a global array holds, an object only a parked
// thread's stack holds, and memory that grows on command. Read from a kernel core, gdb's
// gcore, `retain-graph dump` and a fork dump (HeapDumps preloaded), and compared with an attach.
//
//   attach-dump-target [N]     N sessions (default 40)
//   stdin `grow MIB`           adds MIB MiB of payload to the sessions; answers `grown RSS`
//   stdin `add N`              N more sessions; answers `added TOTAL`
//   FIXTURE_CORE_DIR=DIR       works in DIR with no core size limit (setrlimit RLIMIT_CORE) and
//                              no signal blocked, so that SIGABRT leaves the kernel's core there
import FixtureSupport
import Foundation

final class DumpedSession {
    let user: String
    var payload: [[UInt8]] = []

    init(user: String) { self.user = user }
}

/// Held by nothing but a local of the parked thread.
final class StackHeld {
    let label = "on a parked thread's stack"
}

var sessions: [DumpedSession] = []

if let directory = ProcessInfo.processInfo.environment["FIXTURE_CORE_DIR"] {
    var unlimited = rlimit(rlim_cur: rlim_t.max, rlim_max: rlim_t.max)  // RLIM_INFINITY
    _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &unlimited)
    _ = FileManager.default.changeCurrentDirectoryPath(directory)
    // A test's threads block most signals and a child inherits its mask: SIGABRT must reach
    // the default action (set before the parked thread starts, which inherits it).
    var none = sigset_t()
    sigemptyset(&none)
    sigprocmask(SIG_SETMASK, &none, nil)
}

let started = DispatchSemaphore(value: 0)
let parked = DispatchSemaphore(value: 0)
let thread = Thread {
    let held = StackHeld()
    started.signal()
    parked.wait()
    withExtendedLifetime(held) {}
}
thread.name = "parked"
thread.start()
started.wait()

for index in 0..<firstArgument(or: 40) { sessions.append(DumpedSession(user: "user-\(index)")) }

/// Resident bytes (`/proc/self/statm`).
func resident() -> Int {
    let text = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
    let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

announceReady("\(sessions.count)")
while let line = readLine() {
    if line.hasPrefix("grow "), let mebibytes = Int(line.dropFirst(5)), !sessions.isEmpty {
        for index in 0..<mebibytes {
            sessions[index % sessions.count].payload.append([UInt8](repeating: 1, count: 1 << 20))
        }
        say("grown \(resident())")
    } else if line.hasPrefix("add "), let count = Int(line.dropFirst(4)) {
        for _ in 0..<count { sessions.append(DumpedSession(user: "user-\(sessions.count)")) }
        say("added \(sessions.count)")
    }
}
runForever()
