import RetainGraphUtilities

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The toolchain's `libswiftRemoteMirror.so`, loaded once with `dlopen`, its entry points
/// looked up with `dlsym`.
final class MirrorLibrary: @unchecked Sendable {
    /// The file loaded.
    let path: String
    /// Where the library's code is in this process (empty when it could not be found): a fault
    /// there, during a call into the library, is the library's own (``RemoteMirror``).
    let code: Range<UInt>
    private let functions: [String: UnsafeMutableRawPointer]

    private static let names = [
        "createReflectionContextWithDataLayout", "destroyReflectionContext",
        "addReflectionMappingInfo", "typeRefForMetadata", "infoForInstance", "childOfInstance",
        "infoForMetadata", "childOfMetadata", "copyNameForTypeRef", "typeRefForMangledTypeName",
        "infoForTypeRef", "childOfTypeRef", "copyDemangledNameForTypeRef",
        "genericArgumentCountOfTypeRef", "genericArgumentOfTypeRef", "projectExistential",
        "projectEnumValue",
    ]

    /// The entry points that read tasks and actors (``TaskInspection``): looked up when present,
    /// so that a library without them still attaches (and says it cannot read tasks).
    private static let taskNames = [
        "asyncTaskInfo", "asyncTaskSlabAllocations", "actorInfo", "nextJob",
    ]

    private init(path: String, code: Range<UInt>, functions: [String: UnsafeMutableRawPointer]) {
        self.path = path
        self.code = code
        self.functions = functions
    }

    /// Loads the library at `path`, or, when `path` is nil, the first found of
    /// ``defaultPaths()``.
    static func load(path: String?) throws(AttachError) -> MirrorLibrary {
        let candidates = path.map { [$0] } ?? defaultPaths()
        var problems: [String] = []
        for candidate in candidates {
            guard let handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL) else {
                problems.append(dlerror().map { String(cString: $0) } ?? candidate)
                continue
            }
            var functions: [String: UnsafeMutableRawPointer] = [:]
            for name in names {
                guard let function = dlsym(handle, "swift_reflection_" + name) else {
                    throw .remoteMirrorUnavailable(
                        reason: "\(candidate) lacks swift_reflection_\(name)")
                }
                functions[name] = function
            }
            for name in taskNames {
                functions[name] = dlsym(handle, "swift_reflection_" + name)
            }
            // The file the loader found (a bare name is looked for in its search path).
            let address = functions.values.first.map { UInt(bitPattern: $0) } ?? 0
            let mappings = ProcessFiles.mappings(of: getpid()) ?? []
            let loaded = mappings.first { $0.range.contains(address) && $0.isFile }
            let code =
                mappings.first {
                    $0.range.contains(address) && $0.isExecutable
                }.map(\.range) ?? 0..<0
            return MirrorLibrary(path: loaded?.path ?? candidate, code: code, functions: functions)
        }
        throw .remoteMirrorUnavailable(reason: problems.joined(separator: "; "))
    }

    /// Where the library is looked for, in order: bundled with this program (the portable
    /// archive's `lib/` beside its `bin/`, then the executable's own folder), next to the Swift
    /// runtime this program uses, then the usual toolchains.
    static func defaultPaths() -> [String] {
        var paths: [String] = []
        for folder in bundleFolders() {
            paths.append(folder + "/libswiftRemoteMirror.so")
        }
        let core = ProcessFiles.mappings(of: getpid())?.first {
            $0.path.hasSuffix("/libswiftCore.so")
        }
        if let core, let slash = core.path.lastIndex(of: "/") {
            paths.append(String(core.path[..<slash]) + "/libswiftRemoteMirror.so")
        }
        paths += [
            "/opt/swift/usr/lib/swift/linux/libswiftRemoteMirror.so",
            "/usr/lib/swift/linux/libswiftRemoteMirror.so", "libswiftRemoteMirror.so",
        ]
        return paths
    }

    /// `<executable's folder>/../lib` and `<executable's folder>`.
    private static func bundleFolders() -> [String] {
        guard let executable = ProcessChecks.linkTarget("/proc/self/exe"),
            let slash = executable.lastIndex(of: "/")
        else { return [] }
        let folder = String(executable[..<slash])
        return [folder + "/../lib", folder].map { canonical($0) ?? $0 }
    }

    /// `path` with every link and `..` resolved (`realpath`), or nil when it does not exist.
    private static func canonical(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The Swift version this library reads: that of the `libswiftCore.so` beside it (a
    /// toolchain's folder), or, for a library bundled with this program (which the portable
    /// archive takes from the toolchain that built the program), this program's own runtime.
    /// Nil when neither applies.
    var runtimeVersion: RuntimeVersion? {
        let file = Self.canonical(path) ?? path
        guard let slash = file.lastIndex(of: "/") else { return nil }
        let folder = String(file[..<slash])
        if let core = ELFFile(path: folder + "/libswiftCore.so") {
            return RuntimeVersion(file: core)
        }
        return Self.bundleFolders().contains(folder) ? RuntimeVersion.current : nil
    }

    func function(_ name: String) -> UnsafeMutableRawPointer? { functions[name] }

    /// Whether the library can read tasks (`swift_reflection_asyncTaskInfo` and the actor
    /// entry points, since Swift 5.5's toolchains).
    var readsTasks: Bool { Self.taskNames.allSatisfy { functions[$0] != nil } }
}
