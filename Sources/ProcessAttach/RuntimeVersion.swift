import RetainGraphUtilities

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The version of a Swift runtime, as the standard library states it: major and minor (6.3).
///
/// A Swift runtime carries no version string, in `.rodata` or in an ELF note. What it does
/// carry is `_SwiftStdlibVersion.current` (mangled `$sSo19_SwiftStdlibVersionasE7currentABvgZ`),
/// a getter that returns its version as a constant, `0x00MMmmpp`: on x86_64
/// `mov $0x60300, %eax` (`B8 00 03 06 00`), on arm64 `movz`/`movk` into `w0`. The symbol is
/// exported by `libswiftCore.so` (`.dynsym`), and is a local symbol (`.symtab`) of an executable
/// linked with `-static-stdlib`; the version is decoded from the getter's first instructions in
/// the file. A stripped static executable, or another instruction sequence, gives no version:
/// the attach then goes ahead unchecked. The patch level is not kept (6.3.1's runtime says 6.3).
struct RuntimeVersion: Hashable, Sendable, CustomStringConvertible {
    /// The getter whose code holds the version.
    static let getterSymbol = "$sSo19_SwiftStdlibVersionasE7currentABvgZ"

    let major: Int
    let minor: Int

    /// `6.3`.
    var description: String { "\(major).\(minor)" }

    /// The version encoded as `0x00MMmmpp`, if it is a plausible one (major 5 to 99).
    init?(encoded value: UInt32) {
        let major = Int(value >> 16)
        guard value >> 24 == 0, (5...99).contains(major) else { return nil }
        self.major = major
        self.minor = Int((value >> 8) & 0xFF)
    }

    /// The runtime this program runs on (linked statically into the portable tool).
    static var current: RuntimeVersion? {
        RuntimeVersion(encoded: _SwiftStdlibVersion.current._value)
    }

    /// The version of the runtime in `file` (a `libswiftCore.so`, or an executable with a
    /// static runtime), or nil when it cannot be read.
    init?(file: ELFFile) {
        guard
            let address = file.exportedSymbol(named: Self.getterSymbol)
                ?? file.symbol(named: Self.getterSymbol),
            let segment = file.segments.first(where: {
                $0.type == ELFFile.loadSegment && $0.virtualAddress <= address
                    && address - $0.virtualAddress < $0.fileSize
            })
        else { return nil }
        let offset = segment.offset + (address - segment.virtualAddress)
        var code: [UInt8] = []
        for index in 0..<32 {
            guard let byte = file.load(offset + UInt(index), as: UInt8.self) else { break }
            code.append(byte)
        }
        guard let machine = file.load(0x12, as: UInt16.self),
            let value = machine == 183 ? Self.arm64Constant(code) : Self.x86Constant(code),
            let version = RuntimeVersion(encoded: value)
        else { return nil }
        self = version
    }

    /// The constant an x86_64 getter returns: the first `mov $imm32, %eax` (`B8`) before its
    /// `ret` (`C3`), skipping a frame set-up (`push %rbp; mov %rsp,%rbp`).
    static func x86Constant(_ code: [UInt8]) -> UInt32? {
        var index = 0
        while index < code.count, code[index] != 0xC3 {
            if code[index] == 0xB8, index + 4 < code.count {
                return code[index + 1..<index + 5].reversed().reduce(0) { $0 << 8 | UInt32($1) }
            }
            // push %rbp (55), mov %rsp,%rbp (48 89 e5), endbr64 (f3 0f 1e fa): step over.
            switch code[index] {
            case 0x55: index += 1
            case 0x48 where index + 2 < code.count && code[index + 1] == 0x89: index += 3
            case 0xF3 where index + 3 < code.count && code[index + 1] == 0x0F: index += 4
            default: return nil
            }
        }
        return nil
    }

    /// The value an arm64 getter leaves in `w0` before its `ret`: `movz` and `movk` of `w0`
    /// (frame set-up instructions in between are skipped).
    static func arm64Constant(_ code: [UInt8]) -> UInt32? {
        var value: UInt32?
        var index = 0
        while index + 4 <= code.count {
            let word = code[index..<index + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            index += 4
            if word == 0xD65F_03C0 { return value }  // ret
            let shift = ((word >> 21) & 3) * 16
            let immediate = (word >> 5) & 0xFFFF
            if word & 0xFF80_001F == 0x5280_0000 {  // movz w0, #imm, lsl #shift
                value = immediate << shift
            } else if word & 0xFF80_001F == 0x7280_0000, let old = value {  // movk w0
                value = (old & ~(0xFFFF << shift)) | immediate << shift
            }
        }
        return nil
    }

    /// The runtime of process `pid`: its `libswiftCore.so`, or its executable's static runtime
    /// (read through `/proc/PID/root` and `/proc/PID/exe`, so a target in another mount
    /// namespace is read right). Nil when no version can be read.
    static func of(processID pid: Int32) -> (version: RuntimeVersion, file: String)? {
        let core = ProcessFiles.mappings(of: pid)?.first { $0.path.hasSuffix("/libswiftCore.so") }
        if let core {
            guard let file = ELFFile(path: "/proc/\(pid)/root" + core.path),
                let version = RuntimeVersion(file: file)
            else { return nil }
            return (version, core.path)
        }
        guard let file = ELFFile(path: "/proc/\(pid)/exe"), let version = RuntimeVersion(file: file)
        else { return nil }
        let executable = ProcessChecks.linkTarget("/proc/\(pid)/exe") ?? "its executable"
        return (version, executable + " (static runtime)")
    }
}
