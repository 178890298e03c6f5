import Foundation

@testable import StackTraces

/// Real code addresses of this test process (its images' functions, where `/proc/self/maps`
/// says they are loaded): what the symbolication tests feed both routes.
enum LoadedCode {
    /// Why addresses could not be found.
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// The path of the running executable (the test bundle).
    static func executablePath() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }

    /// The path of the loaded image whose file name starts with `prefix`, such as
    /// `libswiftCore.so`.
    static func imagePath(named prefix: String) throws -> String {
        let path = try mappings().map(\.path).first { path in
            path.split(separator: "/").last?.hasPrefix(prefix) == true
        }
        guard let path else { throw Missing(description: "no image named \(prefix)* is loaded") }
        return path
    }

    /// A function of a loaded image, seen through a return address inside it.
    struct Function {
        /// One byte past the middle of the function (symbolication looks a return address up
        /// at `address - 1`).
        var address: UInt
        /// Every symbol naming the function's entry point, without ELF symbol versions.
        var names: Set<String>
    }

    /// `count` return addresses inside functions of the image at `path`, one per function,
    /// from functions spread evenly over its symbol table.
    ///
    /// - Parameters:
    ///   - count: How many addresses to return (fewer when the image has fewer functions).
    ///   - path: The image's path, as `/proc/self/maps` shows it.
    ///   - symbolizer: The `llvm-symbolizer` in use, whose folder may hold `llvm-nm`.
    ///   - phase: Which function of each step to take, from 0 to 1.
    /// - Returns: The addresses.
    static func functionAddresses(
        count: Int, inImageAt path: String, symbolizer: String? = nil, phase: Double = 0.5
    ) throws -> [UInt] {
        try functions(count: count, inImageAt: path, symbolizer: symbolizer, phase: phase)
            .map(\.address)
    }

    /// `count` functions of the image at `path`, spread evenly over its symbol table, with
    /// their names.
    ///
    /// The functions come from `nm -S` (the toolchain's `llvm-nm` beside `symbolizer`, else
    /// `nm`), its full symbol table or, for stripped libraries, its dynamic one; where they
    /// are loaded comes from `dl_iterate_phdr`.
    ///
    /// - Parameters:
    ///   - count: How many functions to return (fewer when the image has fewer).
    ///   - path: The image's path, as `/proc/self/maps` shows it.
    ///   - symbolizer: The `llvm-symbolizer` in use, whose folder may hold `llvm-nm`.
    ///   - phase: Which function of each step to take, from 0 to 1.
    /// - Returns: The functions.
    static func functions(
        count: Int, inImageAt path: String, symbolizer: String? = nil, phase: Double = 0.5
    ) throws -> [Function] {
        let nm = nm(besides: symbolizer)
        var functions = try symbols(nm: nm, arguments: ["-S", "--defined-only", path])
        if functions.isEmpty {
            functions = try symbols(nm: nm, arguments: ["-D", "-S", "--defined-only", path])
        }
        let bias = try loadBias(ofImageAt: path)
        guard !functions.isEmpty, count > 0 else {
            throw Missing(description: "no functions found in \(path)")
        }
        let step = max(Double(functions.count) / Double(count), 1)
        var result: [Function] = []
        var position = step * min(max(phase, 0), 0.99)
        while Int(position) < functions.count, result.count < count {
            let function = functions[Int(position)]
            result.append(
                Function(
                    address: bias + function.start + function.size / 2 + 1, names: function.names))
            position += step
        }
        return result
    }

    /// The load bias of the image at `path`, from the dynamic loader (`dl_iterate_phdr`).
    ///
    /// Not the lowest mapping of the file: a library that someone also mapped to read it (the
    /// `Runtime` module does so to symbolicate) has a second mapping, often below the loaded
    /// image.
    static func loadBias(ofImageAt path: String) throws -> UInt {
        let code = try mappings().filter { $0.path == path && $0.executable }
        guard let start = code.map(\.start).min(),
            let bias = LoadedImage.containing(start)?.bias
        else { throw Missing(description: "\(path) is not loaded") }
        return bias
    }

    /// Return addresses every `stride` bytes through the function called `name` (mangled) in
    /// the image at `path`.
    ///
    /// - Parameters:
    ///   - name: The function's symbol, as the symbol table spells it.
    ///   - path: The image's path, as `/proc/self/maps` shows it.
    ///   - symbolizer: The `llvm-symbolizer` in use, whose folder may hold `llvm-nm`.
    ///   - stride: The distance between two addresses.
    /// - Returns: The addresses, each one byte past a byte of the function.
    static func functionBytes(
        named name: String, inImageAt path: String, symbolizer: String, stride: Int
    ) throws -> [UInt] {
        let functions = try symbols(
            nm: nm(besides: symbolizer), arguments: ["-S", "--defined-only", path])
        let bias = try loadBias(ofImageAt: path)
        guard let function = functions.first(where: { $0.names.contains(name) }) else {
            throw Missing(description: "no function \(name) in \(path)")
        }
        return Swift.stride(from: 0, to: function.size, by: max(stride, 1)).map {
            bias + function.start + $0 + 1
        }
    }

    /// The toolchain's `llvm-nm` beside `symbolizer`, else binutils' `nm`, else an `llvm-nm`
    /// on `PATH`.
    private static func nm(besides symbolizer: String?) -> String {
        var candidates: [String] = []
        if let symbolizer {
            candidates.append(
                URL(fileURLWithPath: symbolizer).deletingLastPathComponent()
                    .appendingPathComponent("llvm-nm").path)
        }
        candidates.append("/usr/bin/nm")
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { $0 + "/llvm-nm" }
        return candidates.first(where: FileManager.default.isExecutableFile(atPath:)) ?? "nm"
    }

    /// Text symbols with a size of at least 2 bytes, by address, with every name of each.
    private static func symbols(nm: String, arguments: [String]) throws -> [(
        start: UInt, size: UInt, names: Set<String>
    )] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nm)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var byStart: [UInt: (size: UInt, names: Set<String>)] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 4, ["t", "T", "W", "i"].contains(fields[2]),
                let start = UInt(fields[0], radix: 16), let size = UInt(fields[1], radix: 16),
                size >= 2
            else { continue }
            let name = String(fields[3...].joined(separator: " ").prefix { $0 != "@" })
            byStart[start, default: (size, [])].names.insert(name)
        }
        let functions = byStart.map { (start: $0.key, size: $0.value.size, names: $0.value.names) }
        return functions.sorted { $0.start < $1.start }
    }

    /// The whole text of a file, read to its end by hand: procfs files report a size of 0, and
    /// a reader that trusts the size stops after the first block.
    static func contents(ofFile path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Missing(description: "cannot open \(path)") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private struct Mapping {
        var start: UInt
        var end: UInt
        var executable: Bool
        var path: String
    }

    private static func mappings() throws -> [Mapping] {
        let text = try contents(ofFile: "/proc/self/maps")
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[5].hasPrefix("/") else { return nil }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16),
                let end = UInt(range[1], radix: 16), end > start
            else { return nil }
            return Mapping(
                start: start, end: end, executable: fields[1].contains("x"),
                path: fields[5...].joined(separator: " "))
        }
    }
}
