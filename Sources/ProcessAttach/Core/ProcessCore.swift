import Foundation
import RetainGraphUtilities

/// A process's memory read back from an ELF core file, on this machine or another one.
///
/// Reads the cores the kernel writes (`core_pattern`; systemd-coredump's once decompressed with
/// `coredumpctl dump`), gdb's `gcore`, `retain-graph dump` and the forked child of HeapDumps.
/// A core holds the process's writable memory (heaps, stacks, global variables) and the first
/// page of each image; the rest of each image (code, type metadata) is read from the files the
/// core's notes name (`NT_FILE`), on this machine or under ``sysroot``, after checking that
/// each is the very file the process ran (``CoreFileError/fileChanged(path:file:reason:)``).
///
/// The memory is the same ``ProcessMemory`` an attach copies from a stopped process, and is
/// read by the same `HeapSnapshot(_:stoppedFor:options:)`:
///
/// ```swift
/// let core = try ProcessCore(contentsOfFile: "core.4242")
/// let heap = try HeapSnapshot(core)
/// print(heap.whoHoldsText("App.Session"))
/// ```
public struct ProcessCore: Sendable {
    /// Who wrote a core file.
    public enum Writer: Sendable, Equatable, CustomStringConvertible {
        /// The kernel or gdb's `gcore` (standard notes only).
        case system
        /// `retain-graph dump`: every thread stopped, registers and names kept.
        case retainGraphDump
        /// A forked child of HeapDumps: the process ran on; one thread's registers kept.
        case forkDump

        /// Who wrote the core, for a person.
        public var description: String {
            switch self {
            case .system: return "an ELF core (kernel or gdb)"
            case .retainGraphDump: return "retain-graph dump"
            case .forkDump: return "a fork dump (HeapDumps; the process ran on)"
            }
        }
    }

    /// The core file's path.
    public let path: String
    /// The process's memory, to read with `HeapSnapshot(_:stoppedFor:options:)`.
    public let memory: ProcessMemory
    /// Who wrote the core.
    public let writer: Writer
    /// When the core was written: its writer's note, else the file's modification time.
    public let writtenAt: Date
    /// The folder the process's files were read under, if not this machine's root.
    public let sysroot: String?
    /// The executable's path in the process, if the core names it.
    public let executable: String?
    /// The path of the process's `libswiftCore.so`, if it mapped one.
    let runtimePath: String?
    let runtimeFile: ELFFile?

    /// Reads the core file at `path`.
    ///
    /// - Parameters:
    ///   - path: An ELF core file (x86-64).
    ///   - sysroot: The folder that holds a copy of the process's files under their paths
    ///     (`DIR/usr/lib/swift/linux/libswiftCore.so`), when the core is read on another
    ///     machine than the one it was written on; nil to read them from this machine.
    /// - Throws: A ``CoreFileError``: an unreadable, truncated or malformed core, a core of a
    ///   program that is not Swift, a missing or changed file.
    /// - Complexity: O(*segments* + *files*); the core is mapped, not read.
    public init(contentsOfFile path: String, sysroot: String? = nil) throws(CoreFileError) {
        let core = try CoreFile(path: path)
        let memory = try ProcessMemory(core: core, sysroot: sysroot)
        let images = memory.images
        let runtime = images.image(named: "libswiftCore.so")
        guard runtime != nil || images.images.contains(where: \.hasSwiftMetadata) else {
            throw .notSwift(path: path, command: core.command)
        }
        self.path = path
        self.memory = memory
        self.sysroot = sysroot
        runtimePath = runtime?.path
        runtimeFile = runtime?.file ?? images.images.first?.file
        executable = memory.mappings.first(where: \.isFile)?.path
        switch core.retainGraph.writer {
        case "retain-graph dump"?: writer = .retainGraphDump
        case "fork dump"?: writer = .forkDump
        default: writer = .system
        }
        let modified =
            (try? FileManager.default.attributesOfItem(atPath: path))?[
                .modificationDate] as? Date
        writtenAt =
            core.retainGraph.time.map(Date.init(timeIntervalSince1970:)) ?? modified ?? Date()
    }

    /// Two lines about the core: its file, writer and time, and what it holds.
    public var summary: String {
        let root = sysroot.map { ", files under \($0)" } ?? ""
        return "core file \(PrintableText.escaped(path)): \(writer), written "
            + "\(writtenAt.formatted(.iso8601))\(root)"
    }
}
