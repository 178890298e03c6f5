#if canImport(Glibc)
import Glibc
#endif

/// Memory and load figures of this process and machine, read from `/proc`.
public enum ProcessMemory {
    /// A `kB` field of `/proc/self/status` (`VmRSS`, `VmHWM`), in bytes; 0 if absent.
    public static func statusBytes(_ field: String) -> Int {
        guard let text = readFile("/proc/self/status") else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter(\.isNumber)
            return (Int(digits) ?? 0) * 1024
        }
        return 0
    }

    /// The resident set now, in bytes.
    public static var residentBytes: Int { statusBytes("VmRSS") }
    /// The largest resident set so far, in bytes.
    public static var peakResidentBytes: Int { statusBytes("VmHWM") }

    /// The first three fields of `/proc/loadavg` (1, 5 and 15 minutes).
    public static var loadAverage: String {
        guard let text = readFile("/proc/loadavg") else { return "?" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// Bytes as mebibytes with one decimal.
    public static func mebibytes(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + 524_288) / 1_048_576
        return "\(tenths / 10).\(tenths % 10) MiB"
    }

    private static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = fread(&buffer, 1, buffer.count, file)
            if read <= 0 { break }
            bytes.append(contentsOf: buffer[0..<read])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Wall and process CPU clocks, in seconds.
public enum Clocks {
    /// Monotonic wall-clock time.
    public static var wall: Double { read(CLOCK_MONOTONIC) }
    /// CPU time of this process (all threads).
    public static var processCPU: Double { read(CLOCK_PROCESS_CPUTIME_ID) }

    private static func read(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
