#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

import RetainGraphUtilities

/// The toolchain's `libswiftRemoteMirror.so`, loaded once with `dlopen`, its entry points
/// looked up with `dlsym`.
final class MirrorLibrary: @unchecked Sendable {
    private let functions: [String: UnsafeMutableRawPointer]

    private static let names = [
        "createReflectionContextWithDataLayout", "destroyReflectionContext",
        "addReflectionMappingInfo", "typeRefForMetadata", "infoForInstance", "childOfInstance",
        "infoForMetadata", "childOfMetadata", "copyNameForTypeRef", "typeRefForMangledTypeName",
        "infoForTypeRef", "childOfTypeRef", "copyDemangledNameForTypeRef",
        "genericArgumentCountOfTypeRef", "genericArgumentOfTypeRef", "projectExistential",
        "projectEnumValue",
    ]

    private init(functions: [String: UnsafeMutableRawPointer]) { self.functions = functions }

    /// Loads the library at `path`, or the toolchain's.
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
            return MirrorLibrary(functions: functions)
        }
        throw .remoteMirrorUnavailable(reason: problems.joined(separator: "; "))
    }

    /// The library next to the Swift runtime this program uses, then the usual toolchains.
    private static func defaultPaths() -> [String] {
        var paths: [String] = []
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

    func function(_ name: String) -> UnsafeMutableRawPointer? { functions[name] }
}
