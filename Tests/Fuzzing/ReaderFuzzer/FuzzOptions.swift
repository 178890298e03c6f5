import Foundation
import ProcessAttach
import RetainGraphUtilities

/// The fuzzer's command line.
struct FuzzOptions {
    var fixture = ""
    var inputs = 100_000
    var seed: UInt64 = 1
    var batch = 5_000
    var seconds = 2.0
    var corpus: String?
    var replay: String?
    /// Stages by weight: an input's stage is drawn from these.
    var weights: [(FuzzInput.Stage, Int)] = [(.heap, 30), (.metadata, 35), (.scan, 34), (.full, 1)]
    /// Seconds without progress after which a child counts as hung.
    var hang = 30.0

    init(arguments: [String]) {
        var index = 0
        func value() -> String {
            index += 1
            guard index < arguments.count else {
                complain("reader-fuzzer: \(arguments[index - 1]) needs a value\n")
                exit(2)
            }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--fixture": fixture = value()
            case "--inputs": inputs = Int(value()) ?? inputs
            case "--seed": seed = UInt64(value()) ?? seed
            case "--batch": batch = max(1, Int(value()) ?? batch)
            case "--seconds": seconds = Double(value()) ?? seconds
            case "--hang": hang = Double(value()) ?? hang
            case "--corpus": corpus = value()
            case "--replay": replay = value()
            case "--weights":
                weights = value().split(separator: ",").compactMap { pair in
                    let parts = pair.split(separator: ":")
                    guard parts.count == 2, let stage = FuzzInput.Stage(rawValue: String(parts[0])),
                        let weight = Int(parts[1]), weight >= 0
                    else { return nil }
                    return (stage, weight)
                }
            default:
                complain("reader-fuzzer: unknown argument \(arguments[index])\n")
                exit(2)
            }
            index += 1
        }
        guard !fixture.isEmpty, weights.contains(where: { $0.1 > 0 }) else {
            complain("reader-fuzzer: give --fixture PATH (attach-hostile) and a stage weight\n")
            exit(2)
        }
    }

    /// The stage of input `index`.
    func stage(index: UInt64) -> FuzzInput.Stage {
        var random = inputGenerator(seed: seed ^ 0x5DEE_CE66, index: index)
        let total = weights.reduce(0) { $0 + $1.1 }
        var pick = Int(random.next() % UInt64(total))
        for (stage, weight) in weights {
            if pick < weight { return stage }
            pick -= weight
        }
        return .heap
    }
}

/// Starts `fixture` with address randomization off, waits for its `ready` line, copies its
/// memory as an attach does, and kills it.
func captureFixture(_ fixture: String) throws -> ProcessMemory {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/setarch")
    process.arguments = ["x86_64", "-R", fixture, "0"]
    let output = Pipe()
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    defer {
        process.terminate()
        process.waitUntilExit()
    }
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
        let data = output.fileHandleForReading.availableData
        guard !data.isEmpty else { throw CaptureFailure(reason: "the fixture ended early") }
        line.append(data)
    }
    let words = String(decoding: line, as: UTF8.self).split(separator: " ")
    guard words.first == "ready", words.count > 1, let pid = Int32(words[1]) else {
        throw CaptureFailure(reason: "no ready line")
    }
    let stopped = try StoppedProcess(
        processID: pid, options: AttachOptions(maximumStop: .seconds(60)))
    let memory = try stopped.captureMemory()
    stopped.resume()
    return memory
}

struct CaptureFailure: Error {
    let reason: String
}

/// Writes `message` to standard error.
func complain(_ message: String) {
    FileHandle.standardError.write(Data(message.utf8))
}

/// Writes `line` to standard output at once: progress reaches a log as it is made, and no
/// buffered text is inherited by (or lost with) a child.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
