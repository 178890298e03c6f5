import Foundation
import StackTraces

/// One cold measurement: symbolicate `count` return addresses, one inside each of `count`
/// functions spread evenly over an image's symbol table, in one batch, and print one line.
enum Measurement {
    /// Prints `route count image-size-MB milliseconds microseconds-per-address named-frames`.
    ///
    /// The route is chosen by the parent through `RETAINGRAPH_SYMBOLICATION`; `route` is only
    /// echoed.
    ///
    /// With `warm`, a first batch of 16 other addresses of the same image is symbolicated
    /// before the measured one, on the same thread, as in a long-running process whose later
    /// reports find the `Runtime` module's per-thread caches filled.
    static func run(route: String, count: Int, image: String?, warm: Bool = false) {
        _ = linkEverything()
        guard let path = image.flatMap(loadedImagePath) ?? executablePath(),
            let base = lowestMapping(of: path)
        else {
            print("error: image not found")
            exit(1)
        }
        let all = functions(in: path, count: count + (warm ? 16 : 0)).map { base + $0 + 1 }
        var addresses = all
        if warm {
            // Every other function of the spread for the warm-up, the rest measured.
            let warmUp = stride(from: 0, to: all.count, by: max(all.count / 16, 1)).prefix(16)
            let chosen = Set(warmUp)
            _ = StackTrace(addresses: warmUp.map { all[$0] }).symbolicated()
            addresses = all.indices.filter { !chosen.contains($0) }.map { all[$0] }
        }
        let start = ContinuousClock.now
        let frames = StackTrace(addresses: addresses).symbolicated()
        let elapsed = start.duration(to: .now)
        let milliseconds =
            Double(elapsed.components.seconds) * 1e3
            + Double(elapsed.components.attoseconds) / 1e15
        let named = frames.filter { $0.function != nil }.count
        let withLines = frames.filter { ($0.line ?? 0) > 0 }.count
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print(
            route, addresses.count, size >> 20, String(format: "%.1f", milliseconds),
            String(format: "%.0f", milliseconds * 1e3 / Double(max(addresses.count, 1))),
            named, withLines)
    }

    /// Start addresses plus half the size of `count` text symbols spread over the image's
    /// symbol table (`nm -S`; the dynamic table for stripped libraries).
    static func functions(in path: String, count: Int) -> [UInt] {
        var symbols = nm(["-S", "--defined-only", path])
        if symbols.isEmpty { symbols = nm(["-D", "-S", "--defined-only", path]) }
        guard !symbols.isEmpty, count > 0 else { return [] }
        let step = max(Double(symbols.count) / Double(count), 1)
        return stride(from: step / 2, to: Double(symbols.count), by: step).prefix(count).map {
            let symbol = symbols[Int($0)]
            return symbol.start + symbol.size / 2
        }
    }

    private static func nm(_ arguments: [String]) -> [(start: UInt, size: UInt)] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["nm"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return [] }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var seen: Set<UInt> = []
        return String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 4, fields[2] == "t" || fields[2] == "T",
                let start = UInt(fields[0], radix: 16), let size = UInt(fields[1], radix: 16),
                size >= 2, seen.insert(start).inserted
            else { return nil }
            return (start, size)
        }.sorted { $0.start < $1.start }
    }

    private static func executablePath() -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }

    /// The path of the loaded image whose file name starts with `prefix`.
    private static func loadedImagePath(_ prefix: String) -> String? {
        maps().first { $0.path.split(separator: "/").last?.hasPrefix(prefix) == true }?.path
    }

    /// Where the image's first segment (file offset 0) is mapped: its load bias for a
    /// position-independent image, in a process that mapped no second copy of it.
    private static func lowestMapping(of path: String) -> UInt? {
        maps().filter { $0.path == path && $0.offset == 0 }.map(\.start).min()
    }

    private static func maps() -> [(start: UInt, offset: UInt, path: String)] {
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps") else { return [] }
        var data = Data()
        while let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty { data += chunk }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[5].hasPrefix("/"),
                let start = UInt(fields[0].prefix { $0 != "-" }, radix: 16),
                let offset = UInt(fields[2], radix: 16)
            else { return nil }
            return (start, offset, fields[5...].joined(separator: " "))
        }
    }
}
