import StackTraces

#if canImport(Glibc)
import Glibc
#endif

/// A pprof profile's tables, filled as samples are added: strings interned, one location per
/// address (with its frames' lines), one function per name and file, one mapping per image.
/// Shared by the heap profile (``HeapProfile``) and the task profile (``TaskProfile``).
struct PprofTables {
    var profile = PprofProfile()
    /// Each address's frames (innermost inlined first), given before locations are asked for.
    var frames: [UInt: [StackFrame]] = [:]
    private var stringIDs: [String: Int64] = ["": 0]
    private var locationIDs: [UInt: UInt64] = [:]
    private var functionIDs: [FunctionKey: UInt64] = [:]
    private var mappingIDs: [String: Int] = [:]

    private struct FunctionKey: Hashable {
        var name: String
        var systemName: String
        var file: String
    }

    /// The running executable's path (`/proc/self/exe`), which pprof expects as the first
    /// mapping (it names the profile's "File:" after it).
    static let executablePath: String? = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// Moves the executable's mapping to the front, renumbering mappings from 1.
    mutating func putExecutableFirst() {
        guard let path = Self.executablePath,
            let index = profile.mappings.firstIndex(where: {
                profile.strings[Int($0.filename)] == path
            }),
            index > 0
        else { return }
        let main = profile.mappings.remove(at: index)
        profile.mappings.insert(main, at: 0)
        var renumbered: [UInt64: UInt64] = [:]
        for position in profile.mappings.indices {
            renumbered[profile.mappings[position].id] = UInt64(position + 1)
            profile.mappings[position].id = UInt64(position + 1)
        }
        for position in profile.locations.indices {
            profile.locations[position].mapping =
                renumbered[profile.locations[position].mapping] ?? 0
        }
    }

    /// The string's number in the profile's string table.
    mutating func string(_ value: String) -> Int64 {
        if let id = stringIDs[value] { return id }
        let id = Int64(profile.strings.count)
        profile.strings.append(value)
        stringIDs[value] = id
        return id
    }

    /// The location of `address`, with its frames' functions and lines.
    mutating func location(at address: UInt) -> UInt64 {
        if let id = locationIDs[address] { return id }
        let id = UInt64(profile.locations.count + 1)
        let found = frames[address] ?? [StackFrame(address: address)]
        let lines = found.map { frame in
            PprofProfile.Line(
                function: function(frame), line: Int64(frame.line ?? 0),
                column: Int64(frame.column ?? 0))
        }
        profile.locations.append(
            .init(
                id: id, mapping: mapping(found[0], address), address: UInt64(address), lines: lines)
        )
        locationIDs[address] = id
        return id
    }

    private mutating func function(_ frame: StackFrame) -> UInt64 {
        let key = FunctionKey(
            name: frame.function ?? "0x" + String(frame.address, radix: 16),
            systemName: frame.mangledName ?? "", file: frame.file ?? "")
        if let id = functionIDs[key] { return id }
        let id = UInt64(profile.functions.count + 1)
        profile.functions.append(
            .init(
                id: id, name: string(key.name), systemName: string(key.systemName),
                filename: string(key.file)))
        functionIDs[key] = id
        return id
    }

    /// The image holding `address` as a mapping that covers every address seen in it.
    private mutating func mapping(_ frame: StackFrame, _ address: UInt) -> UInt64 {
        guard let path = frame.imagePath ?? frame.imageName, let offset = frame.offsetInImage,
            offset <= address
        else { return 0 }
        let base = UInt64(address - offset)
        if let index = mappingIDs[path] {
            profile.mappings[index].limit = max(profile.mappings[index].limit, UInt64(address) + 1)
            return profile.mappings[index].id
        }
        let id = UInt64(profile.mappings.count + 1)
        profile.mappings.append(
            .init(
                id: id, start: base, limit: UInt64(address) + 1, fileOffset: 0,
                filename: string(path)))
        mappingIDs[path] = profile.mappings.count - 1
        return id
    }
}
