import Foundation

/// Says the program has set up what the test attaches to: prints `ready PID` and flushes.
public func announceReady(_ detail: String = "") {
    let line =
        "ready \(ProcessInfo.processInfo.processIdentifier)\(detail.isEmpty ? "" : " ")"
        + detail + "\n"
    FileHandle.standardOutput.write(Data(line.utf8))
}

/// Prints a line and flushes (standard output is a pipe: `print` alone would buffer it).
public func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Runs the main run loop forever (timers fire; the process waits to be attached to and killed).
public func runForever() -> Never {
    while true { RunLoop.main.run(until: Date(timeIntervalSinceNow: 60)) }
}

/// The integer value of the first command-line argument, or `fallback`.
public func firstArgument(or fallback: Int) -> Int {
    CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? fallback
}
