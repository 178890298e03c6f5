import Foundation
import ProcessAttach
import Testing

@Test func captureSmoke() throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/work/wt-attach/.build-fixtures/debug/attach-global-cache")
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    defer { p.terminate() }
    _ = out.fileHandleForReading.availableData
    let clock = ContinuousClock()
    let t0 = clock.now
    let stopped = try StoppedProcess(processID: p.processIdentifier)
    let t1 = clock.now
    let memory = try stopped.captureMemory()
    let d = stopped.resume()
    print("stop \(t1 - t0) total stopped \(d) threads \(memory.threads.map(\.name)) copied \(memory.copiedBytes) limitations \(memory.limitations)")
}
