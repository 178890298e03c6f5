/// Why a core file could not be read, or could not be read right.
///
/// A core holds the process's writable memory; its code and read-only data are read from the
/// files it mapped, which must be the very files the process ran. Every case that could make
/// an answer wrong (a rebuilt binary, a missing library, another Swift runtime) is an error,
/// never a guess. Each case's ``description`` is a complete message for a person.
///
/// ```swift
/// do {
///     let core = try ProcessCore(contentsOfFile: "core.4242")
/// } catch {
///     print(error.description)  // "core.4242 is truncated: …"
/// }
/// ```
public enum CoreFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or is not a 64-bit little-endian ELF file.
    case unreadable(path: String, reason: String)
    /// The file is an ELF file but not a core (an executable, a library).
    case notACore(path: String)
    /// The core is of another architecture than this tool reads (x86-64 only).
    case unsupportedMachine(path: String, machine: Int)
    /// The file is shorter than its segments say: a dump cut short (a full disk, a size limit,
    /// an interrupted copy).
    case truncated(path: String, size: Int, expected: Int)
    /// The core's notes are malformed (no thread, no file list where one is needed).
    case malformed(path: String, reason: String)
    /// The process maps no Swift runtime and no image with Swift type metadata.
    case notSwift(path: String, command: String)
    /// Files the process mapped as code are not on this machine (or under the sysroot).
    case missingFiles(path: String, files: [String], sysroot: String?)
    /// A file the process mapped is not the one on disk now: it was rebuilt or replaced since.
    case fileChanged(path: String, file: String, reason: String)
    /// The process ran another Swift runtime than the one the remote mirror library reads.
    case runtimeMismatch(
        path: String, target: String, runtime: String, mirror: String, library: String)
    /// Two cores given to compare are of different programs.
    case differentPrograms(earlier: String, later: String)
    /// Writing a core failed.
    case writeFailed(path: String, reason: String)

    /// A message for a person.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .notACore(let path):
            return "\(path) is an ELF file but not a core file (e_type is not ET_CORE)"
        case .unsupportedMachine(let path, let machine):
            return "\(path) is a core of machine type \(machine); this tool reads x86-64 cores"
        case .truncated(let path, let size, let expected):
            return "\(path) is truncated: \(size) bytes, but its segments need \(expected) "
                + "(was the dump cut short by a full disk or a core size limit?); nothing was read"
        case .malformed(let path, let reason):
            return "\(path) is not a well-formed core: \(reason)"
        case .notSwift(let path, let command):
            return "\(path) is a core of \(command), which is not a Swift program: it maps no "
                + "libswiftCore.so and no image with Swift type metadata"
        case .missingFiles(let path, let files, let sysroot):
            let list = files.prefix(6).joined(separator: ", ")
            let more = files.count > 6 ? " and \(files.count - 6) more" : ""
            let place = sysroot.map { "under --sysroot \($0)" } ?? "on this machine"
            return "\(path): the process mapped files that are not \(place): \(list)\(more); "
                + "copy the program's files from the machine it ran on and give --sysroot DIR"
        case .fileChanged(let path, let file, let reason):
            return "\(path): \(file) is not the file the process ran (\(reason)): it was "
                + "rebuilt or replaced since the core was written; reading it would misread the "
                + "heap. Give the original files with --sysroot DIR"
        case .runtimeMismatch(let path, let target, let runtime, let mirror, let library):
            return "\(path): the process ran Swift \(target) (\(runtime)), but this tool reads "
                + "Swift \(mirror) (\(library)); give the libswiftRemoteMirror.so of a Swift "
                + "\(target) toolchain with --remote-mirror PATH"
        case .differentPrograms(let earlier, let later):
            return "\(earlier) and \(later) are cores of different programs; --growth-from "
                + "compares two cores of one program"
        case .writeFailed(let path, let reason):
            return "cannot write the core \(path): \(reason)"
        }
    }
}
