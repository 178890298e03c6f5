import RetainGraphUtilities

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What is checked before a process is stopped.
enum ProcessChecks {
    /// Throws unless process `pid` exists and this process may read it.
    static func checkAttachable(_ pid: Int32) throws(AttachError) {
        guard pid > 0 else { throw .noSuchProcess(processID: pid) }
        guard pid != getpid() else {
            throw .permissionDenied(processID: pid, reason: "a process cannot attach to itself")
        }
        switch ProcessAccess.probe(pid) {
        case ESRCH: throw .noSuchProcess(processID: pid)
        case EPERM: throw .permissionDenied(processID: pid, reason: permissionReason(pid))
        default: break
        }
        guard ProcessFiles.mappings(of: pid) != nil else {
            if access("/proc/\(pid)", F_OK) != 0 { throw .noSuchProcess(processID: pid) }
            throw .permissionDenied(processID: pid, reason: permissionReason(pid))
        }
    }

    /// Whether the process maps the Swift runtime, or an image with Swift type metadata (a
    /// program linked with a static standard library).
    static func isSwiftProgram(_ pid: Int32) throws(AttachError) -> Bool {
        guard let mappings = ProcessFiles.mappings(of: pid) else {
            throw .processExited(processID: pid, during: "its mappings were read")
        }
        if mappings.isEmpty, ProcessFiles.status("State", of: pid)?.hasPrefix("Z") == true {
            // Linux shows the memory of a process through its main thread, gone with it: the
            // whole process is exiting, or its main thread alone has (pthread_exit).
            if isExiting(pid) { throw .processExited(processID: pid, during: "it was checked") }
            throw .mainThreadExited(processID: pid)
        }
        if mappings.contains(where: { $0.path.hasSuffix("/libswiftCore.so") }) { return true }
        var seen = Set<String>()
        for mapping in mappings where mapping.isFile && seen.insert(mapping.path).inserted {
            if let file = ELFFile(path: "/proc/\(pid)/root" + mapping.path),
                file.section(named: "swift5_type_metadata") != nil
            {
                return true
            }
        }
        return false
    }

    /// Throws when the target's Swift runtime is another version than the one the remote
    /// mirror library reads (see ``RuntimeVersion``), before anything is stopped: a mirror
    /// library reads the metadata of its own runtime, and this one's analysis its heap.
    ///
    /// Not checked when `options.remoteMirrorPath` names a library (the person chose it for
    /// this target), when no library loads (the analysis says so), or when either version
    /// cannot be read (a stripped static executable).
    static func checkRuntime(_ pid: Int32, options: AttachOptions) throws(AttachError) {
        guard options.remoteMirrorPath == nil,
            let library = try? MirrorLibrary.load(path: nil),
            let mirror = library.runtimeVersion,
            let target = RuntimeVersion.of(processID: pid),
            target.version != mirror
        else { return }
        throw .runtimeMismatch(
            processID: pid, target: target.version.description, runtime: target.file,
            mirror: mirror.description, library: library.path)
    }

    /// Whether every thread of `pid` but the main one is exiting (`PF_EXITING`, 0x4, in the
    /// flags of its `stat`) or gone: the process is ending, not only its main thread.
    static func isExiting(_ pid: Int32) -> Bool {
        let threads = ProcessFiles.threadIDs(of: pid) ?? []
        return threads.allSatisfy { tid in
            guard tid != pid,
                let stat = ProcessFiles.text("/proc/\(pid)/task/\(tid)/stat"),
                let close = stat.lastIndex(of: ")")
            else { return true }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 6, let flags = UInt(fields[6]) else { return true }
            return fields[0] == "Z" || fields[0] == "X" || flags & 0x4 != 0
        }
    }

    /// Where symbolic link `path` points (`readlink`), or nil.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Why the kernel refuses to let this process trace `pid`, as precisely as can be told.
    static func permissionReason(_ pid: Int32) -> String {
        if let tracer = ProcessFiles.status("TracerPid", of: pid).flatMap({ Int32($0) }),
            tracer != 0
        {
            let name = ProcessFiles.name(of: tracer).map { " (\($0))" } ?? ""
            return "it is already traced by process \(tracer)\(name), such as a debugger; "
                + "detach that first"
        }
        switch ProcessFiles.ptraceScope {
        case 3?:
            return "kernel.yama.ptrace_scope is 3: no process may be traced on this machine"
        case 2? where geteuid() != 0:
            return "kernel.yama.ptrace_scope is 2: only root or a process with CAP_SYS_PTRACE "
                + "may trace; run as root"
        case 1? where geteuid() != 0:
            return "kernel.yama.ptrace_scope is 1: only a parent may trace its children; run "
                + "as root, grant CAP_SYS_PTRACE (setcap cap_sys_ptrace+ep), or set "
                + "kernel.yama.ptrace_scope to 0"
        default:
            break
        }
        if geteuid() != 0 {
            let owner = ProcessFiles.status("Uid", of: pid)?.split(separator: "\t").first
            let ownerText = owner.map { " (owned by uid \($0))" } ?? ""
            return "this process runs as uid \(geteuid()), is not root and has no "
                + "CAP_SYS_PTRACE, and the target\(ownerText) is not its own; run as root or "
                + "as the target's user"
        }
        return "the kernel refused (EPERM), even to root: a security module or a container "
            + "may forbid ptrace (CAP_SYS_PTRACE missing from this process's capabilities?)"
    }
}
