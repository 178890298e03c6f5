import RetainGraphUtilities
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Numbered points of a stop, where a test makes the attaching process pause or crash.
///
/// The promise that a target is never left stopped has to hold whenever the attaching process
/// dies, so the kill test (`Tests/ProcessAttachTests/StopKillTests.swift`) kills
/// `retain-graph attach` at each step of a stop in turn: after the seize of each thread, its
/// interrupt, its stop, its register read, each batch of memory copied and each detach. A test
/// sets `RETAINGRAPH_STOP_POINTS` in the environment of the process that attaches; every point
/// then writes `stop point N: what` to standard error, and the points listed act:
///
/// - `N:pause` writes `paused at N`, then waits for a line on standard input (a SIGKILL ends
///   the wait): `step` goes on to the next point and pauses there too, any other line goes on;
/// - `N:segv` writes to an unmapped address (a real fault); `N:abort` calls `abort()`.
///
/// Several are separated by commas (`12:pause,30:segv`); `report` only reports. Unset, as it
/// always is outside the tests, a point costs one check of a constant.
enum StopPoints {
    /// What a listed point does.
    enum Action: Equatable, Sendable {
        case pause, segv, abort
    }

    /// The actions by point number, or nil when the variable is unset (points do nothing).
    static let actions: [Int: Action]? = getenv("RETAINGRAPH_STOP_POINTS").map {
        parse(String(cString: $0))
    }

    /// Points reached so far in this process.
    private static let reached = Atomic<Int>(0)
    /// Whether the next point pauses (the last pause was answered `step`).
    private static let stepping = Atomic<Bool>(false)

    /// Parses `12:pause,30:segv`; unknown entries are ignored.
    static func parse(_ text: String) -> [Int: Action] {
        var actions: [Int: Action] = [:]
        for entry in text.split(separator: ",") {
            let parts = entry.split(separator: ":")
            guard parts.count == 2, let number = Int(parts[0]) else { continue }
            switch parts[1] {
            case "pause": actions[number] = .pause
            case "segv": actions[number] = .segv
            case "abort": actions[number] = .abort
            default: continue
            }
        }
        return actions
    }

    /// Marks that the stop reached the next point, `what` (reported, and acted on if listed).
    static func reach(_ what: @autoclosure () -> String) {
        guard let actions else { return }
        let number = reached.add(1, ordering: .relaxed).newValue
        report("stop point \(number): \(what())")
        let stepped = stepping.exchange(false, ordering: .relaxed)
        switch stepped ? .pause : actions[number] {
        case .pause?:
            report("paused at \(number)")
            if readInputLine() == "step" { stepping.store(true, ordering: .relaxed) }
        case .segv?:
            report("crashing (SIGSEGV) at \(number)")
            UnsafeMutablePointer<Int>(bitPattern: 8)?.pointee = 0
        case .abort?:
            report("crashing (SIGABRT) at \(number)")
            abort()
        case nil:
            break
        }
    }

    /// Writes `line` to standard error at once.
    private static func report(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                buffer.baseAddress.map { write(2, $0 + offset, buffer.count - offset) } ?? -1
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Reads standard input up to a newline or its end; the line read.
    private static func readInputLine() -> String {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count < 0, errno == EINTR { continue }
            if count <= 0 || byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }
}
