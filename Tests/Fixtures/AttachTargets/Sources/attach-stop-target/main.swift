// A target for the stop tests (issue 32): many threads doing what real programs do while an
// attach stops them, and a counter that shows it makes progress.
//
//   attach-stop-target COUNTER_FILE [--execd] [--main-exits]
//
// Threads: three busy ones (arithmetic); four blocked in system calls (read on a pipe nobody
// writes, nanosleep, a futex through NSCondition, poll with no descriptors); one creating and
// joining short-lived threads in a loop; one writing the counter. COUNTER_FILE holds two
// little-endian UInt64: the counter (about one tick a millisecond) and the SIGUSR1s handled.
// Standard input takes commands, read by the main thread: `fork` (a child process that writes
// its own counter to COUNTER_FILE.child), `exec` (the main thread execs this program again,
// with --execd), `exec-thread` (another thread does), `ping N` (answers `pong N`).
// --main-exits: the main thread exits (pthread_exit) once the others run; no commands then.
import FixtureSupport
import Foundation
import Synchronization

final class StopTargetSession {
    let name: String
    init(name: String) { self.name = name }
}

let usr1Handled = Atomic<Int>(0)
let sink = Atomic<Int>(0)
let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: attach-stop-target COUNTER_FILE\n".utf8))
    exit(2)
}
let counterPath = arguments[1]
let sessions = (0..<100).map { StopTargetSession(name: "session \($0)") }

// A test's threads block most signals, and a child inherits that: unblock them, as a program
// started from a shell has them, before any thread starts (threads inherit the mask).
var noSignals = sigset_t()
sigemptyset(&noSignals)
sigprocmask(SIG_SETMASK, &noSignals, nil)
_ = usr1Handled.load(ordering: .relaxed)  // initialized before the handler can run
signal(SIGUSR1) { _ in usr1Handled.add(1, ordering: .relaxed) }

/// Writes (counter, SIGUSR1s) to `descriptor` at offset 0 every millisecond, forever. Calls
/// only async-signal-safe functions and allocates nothing: a forked child runs it too.
@Sendable func count(into descriptor: Int32, handled: () -> Int) -> Never {
    var words: (UInt64, UInt64) = (0, 0)
    while true {
        words.0 &+= 1
        words.1 = UInt64(handled())
        _ = withUnsafeBytes(of: &words) { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        nanosleep(&pause, nil)
    }
}

func openCounter(_ path: String) -> Int32 {
    open(path, O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0o644)
}

func start(_ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.start()
}

let counter = openCounter(counterPath)
start { count(into: counter) { usr1Handled.load(ordering: .relaxed) } }
for _ in 0..<3 {
    start {
        var value = 1
        while true {
            for _ in 0..<10_000 { value = value &* 6_364_136_223_846_793_005 &+ 1 }
            sink.store(value, ordering: .relaxed)
        }
    }
}
start {
    var descriptors: [Int32] = [0, 0]
    _ = pipe(&descriptors)
    var byte: UInt8 = 0
    while true { _ = read(descriptors[0], &byte, 1) }
}
start { while true { sleep(1000) } }
start {
    let condition = NSCondition()
    condition.lock()
    while true { condition.wait() }
}
start { while true { _ = poll(nil, 0, -1) } }
start {
    while true {
        var thread = pthread_t()
        let made = pthread_create(
            &thread, nil,
            { _ in
                var value = 0
                for step in 0..<1_000 { value &+= step }
                sink.store(value, ordering: .relaxed)
                return nil
            }, nil)
        if made == 0 { pthread_join(thread, nil) }
    }
}

/// Runs this program again in this process, marked as exec'd.
@Sendable func execAgain() {
    let path = "/proc/self/exe"
    let words: [String] = [path, counterPath, "--execd"]
    let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
    execv(path, argv + [nil])
    FileHandle.standardError.write(Data("exec failed: \(errno)\n".utf8))
}

func forkChild() {
    let child = openCounter(counterPath + ".child")
    let pid = fork()
    if pid == 0 { count(into: child) { 0 } }
    close(child)
    say("forked \(pid)")
}

announceReady(arguments.contains("--execd") ? "execd" : "")
if arguments.contains("--main-exits") {
    pthread_exit(nil)
}
while let line = readLine() {
    switch line.split(separator: " ").first {
    case "fork": forkChild()
    case "exec": execAgain()
    case "exec-thread": start { execAgain() }
    case "ping": say("pong" + line.dropFirst(4))
    default: say("unknown command: \(line)")
    }
}
withExtendedLifetime(sessions) { runForever() }
