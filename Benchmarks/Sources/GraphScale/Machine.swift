#if canImport(Glibc)
import Glibc
#endif

/// What the machine is doing while a figure is taken, and what the process holds.
enum Machine {
    /// `load 0.42 0.51 0.60 (2 cores)`, from `/proc/loadavg`.
    static func loadAverage() -> String {
        let fields = firstLine(of: "/proc/loadavg").split(separator: " ").prefix(3)
        return
            "load \(fields.joined(separator: " ")) (\(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores)"
    }

    /// The peak resident set size (`VmHWM` in `/proc/self/status`), in bytes.
    static func peakResidentBytes() -> Int { statusField("VmHWM:") }

    /// The current resident set size (`VmRSS`), in bytes.
    static func residentBytes() -> Int { statusField("VmRSS:") }

    private static func statusField(_ name: String) -> Int {
        guard let file = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 512)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            let line = String(
                decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard line.hasPrefix(name) else { continue }
            let kilobytes = line.dropFirst(name.count)
                .split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
            return (kilobytes ?? 0) * 1_024
        }
        return 0
    }

    private static func firstLine(of path: String) -> String {
        guard let file = fopen(path, "r") else { return "?" }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "?" }
        return String(
            decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) },
            as: UTF8.self)
    }
}

/// A fixed-seed SplitMix64 generator, so every run measures the same graphs.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Times `body` with the continuous clock and prints `label: <ms> ms` after the load average.
@discardableResult
func measure<Result>(_ label: String, _ body: () -> Result) -> Result {
    let clock = ContinuousClock()
    var result: Result?
    let elapsed = clock.measure { result = body() }
    let milliseconds =
        Double(elapsed.components.attoseconds) / 1e15
        + Double(elapsed.components.seconds) * 1e3
    print(
        "\(Machine.loadAverage().split(separator: "(")[0])| \(label): \(formatted(milliseconds)) ms"
    )
    guard let result else { fatalError("measure: no result") }
    return result
}

func formatted(_ value: Double) -> String {
    let rounded = (value * 100).rounded() / 100
    return "\(rounded)"
}

/// Runs `body` `times` times and prints the median wall clock as `label: <ms> ms (median of k)`.
func measureMedian(_ label: String, times: Int, _ body: () -> Void) {
    let clock = ContinuousClock()
    var samples: [Double] = []
    for _ in 0..<max(1, times) {
        let elapsed = clock.measure(body)
        samples.append(
            Double(elapsed.components.attoseconds) / 1e15
                + Double(elapsed.components.seconds) * 1e3)
    }
    samples.sort()
    let median = samples[samples.count / 2]
    print(
        "\(Machine.loadAverage().split(separator: "(")[0])| \(label): \(formatted(median)) ms "
            + "(median of \(samples.count); min \(formatted(samples[0])), "
            + "max \(formatted(samples[samples.count - 1])))")
}
