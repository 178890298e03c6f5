import Foundation

/// Runs ``Measurement`` in fresh processes, one per route and batch size, and prints a table.
enum Driver {
    /// Prints one row per batch size: for each route, milliseconds for the batch and
    /// microseconds per address, with the load average before each measurement.
    static func table(routes: [String], counts: [Int], image: String?, warm: Bool = false) {
        #if DEBUG
        let configuration = "debug"
        #else
        let configuration = "release"
        #endif
        print("# SymbolicationCost, \(configuration) build, \(Date()), \(machine())")
        print("# image: \(image ?? "this program"); each cell: ms for the batch / µs per address")
        print("# (load = 1-minute load average when the measurement started)")
        print("| addresses | " + routes.map { "\($0)" }.joined(separator: " | ") + " |")
        print("| ---: |" + String(repeating: " ---: |", count: routes.count))
        var imageSize = 0
        for count in counts {
            var cells: [String] = []
            for route in routes {
                let load = loadAverage()
                guard let fields = measure(route: route, count: count, image: image, warm: warm)
                else {
                    cells.append("failed")
                    continue
                }
                imageSize = Int(fields[2]) ?? imageSize
                cells.append("\(fields[3]) ms / \(fields[4]) µs (load \(load))")
            }
            print("| \(count) | " + cells.joined(separator: " | ") + " |")
        }
        print("# image size: \(imageSize) MB")
    }

    /// Runs this program's `measure` mode with the route set in the environment.
    private static func measure(route: String, count: Int, image: String?, warm: Bool)
        -> [Substring]?
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments =
            ["measure", route, String(count), image ?? "-"] + (warm ? ["warm"] : [])
        var environment = ProcessInfo.processInfo.environment
        environment["RETAINGRAPH_SYMBOLICATION"] = route
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        guard (try? process.run()) != nil else { return nil }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let fields = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        return process.terminationStatus == 0 && fields.count >= 7 ? fields : nil
    }

    /// The 1-minute load average, from /proc/loadavg.
    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
        return String(text.split(separator: " ").first ?? "?")
    }

    /// Cores and kernel, for the table's header.
    private static func machine() -> String {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) {
            String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
        }
        return "\(ProcessInfo.processInfo.activeProcessorCount) cores, Linux \(release)"
    }
}
