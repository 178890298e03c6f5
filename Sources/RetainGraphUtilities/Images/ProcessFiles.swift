#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One line of `/proc/PID/maps`: a range of the target's address space.
package struct Mapping: Sendable, Equatable {
    /// The addresses, `start..<end`.
    package var range: Range<UInt>
    package var isReadable: Bool
    package var isWritable: Bool
    package var isExecutable: Bool
    /// Whether the mapping is shared (`s`) rather than private (`p`).
    package var isShared: Bool
    /// The offset in the file it maps.
    package var offset: UInt
    /// The device and inode of the file (`0` for none).
    package var inode: UInt
    /// The file, `[heap]`, `[stack]`, `[vvar]`…, or empty for anonymous memory.
    package var path: String

    /// Whether a file backs the mapping (its path is absolute).
    package var isFile: Bool { path.hasPrefix("/") }

    /// Parses one line: `start-end perms offset dev inode path`.
    package init?(line: Substring) {
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        guard fields.count >= 5 else { return nil }
        let bounds = fields[0].split(separator: "-")
        guard bounds.count == 2, let start = UInt(bounds[0], radix: 16),
            let end = UInt(bounds[1], radix: 16), start < end,
            let offset = UInt(fields[2], radix: 16), let inode = UInt(fields[4])
        else { return nil }
        let permissions = Array(fields[1].utf8)
        guard permissions.count >= 4 else { return nil }
        range = start..<end
        isReadable = permissions[0] == UInt8(ascii: "r")
        isWritable = permissions[1] == UInt8(ascii: "w")
        isExecutable = permissions[2] == UInt8(ascii: "x")
        isShared = permissions[3] == UInt8(ascii: "s")
        self.offset = offset
        self.inode = inode
        path =
            fields.count > 5 ? String(fields[5].drop { $0 == " " }).replacingDeleted() : ""
    }
}

extension String {
    /// The path without the ` (deleted)` the kernel appends when the file was removed.
    fileprivate func replacingDeleted() -> String {
        hasSuffix(" (deleted)") ? String(dropLast(10)) : self
    }
}

/// Reading the target's `/proc` files.
package enum ProcessFiles {
    /// The whole contents of a `/proc` file (their size is unknown until read), or nil.
    package static func contents(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? bytes : nil }
            bytes.append(contentsOf: buffer.prefix(count))
        }
    }

    /// The contents of a `/proc` file as text, or nil.
    package static func text(_ path: String) -> String? {
        contents(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The target's mappings, in address order.
    package static func mappings(of pid: Int32) -> [Mapping]? {
        text("/proc/\(pid)/maps").map { text in
            text.split(separator: "\n").compactMap(Mapping.init(line:))
        }
    }

    /// The ids of the target's threads (`/proc/PID/task`), or nil when the process is gone.
    package static func threadIDs(of pid: Int32) -> [Int32]? {
        guard let directory = opendir("/proc/\(pid)/task") else { return nil }
        defer { closedir(directory) }
        var ids: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let id = Int32(name) { ids.append(id) }
        }
        return ids.sorted()
    }

    /// A thread's or process's name (`comm`), or nil.
    package static func name(of pid: Int32, thread: Int32? = nil) -> String? {
        let path = thread.map { "/proc/\(pid)/task/\($0)/comm" } ?? "/proc/\(pid)/comm"
        return text(path).map { $0.hasSuffix("\n") ? String($0.dropLast()) : $0 }
    }

    /// The value of a `Name:` line of `/proc/PID/status` (`TracerPid`, `Uid`…), or nil.
    package static func status(_ key: String, of pid: Int32) -> String? {
        guard let text = text("/proc/\(pid)/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return line.dropFirst(key.count + 1).trimmingCharacters(in: " \t")
        }
        return nil
    }

    /// `kernel.yama.ptrace_scope`, or nil when Yama is not enabled.
    package static var ptraceScope: Int? {
        text("/proc/sys/kernel/yama/ptrace_scope").flatMap {
            Int($0.trimmingCharacters(in: " \n"))
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        return String(
            drop { characters.contains($0) }.reversed().drop { characters.contains($0) }
                .reversed())
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        Substring(self).trimmingCharacters(in: set)
    }
}
