#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How a ``Symbolicator`` chooses between its two routes, read once from the environment.
///
/// - `RETAINGRAPH_SYMBOLICATION`: `runtime` uses the toolchain's `Runtime` module only;
///   `symbolizer` sends every batch to `llvm-symbolizer` (small ones too); unset or `auto`
///   lets each image's debug information and batch size decide (``Route/automatic``).
/// - `RETAINGRAPH_SYMBOLIZER`: the absolute path of the `llvm-symbolizer` to run. When it is
///   set but names no executable file, the `Runtime` module does all the work. When unset, the toolchain's own
///   (the `bin` folder of the toolchain whose `libswiftCore.so` the process loaded) is used,
///   else the first `llvm-symbolizer` on `PATH`.
/// - `RETAINGRAPH_SYMBOLIZER_TIMEOUT`: seconds one run of the symbolizer may take before it is
///   killed and the `Runtime` module takes over (default 30).
struct SymbolicationSettings: Sendable {
    /// Which route symbolicates.
    enum Route: Sendable, Equatable {
        /// The symbolizer for every batch of an image that carries DWARF line tables, the
        /// `Runtime` module for images without DWARF.
        ///
        /// The `Runtime` module reads an image's inlined calls (50–100 ms for an 8 MB binary
        /// with DWARF, about 1 s for a large one) before its first address, and keeps them only
        /// as long as the thread that asked, which is a short-lived one of ours (see
        /// ``Symbolicator``): every batch starts cold, so one symbolizer run (15–35 ms) is the
        /// faster from one address on. (A warm cache made the `Runtime` module faster for
        /// batches under four addresses; the growth check at 1M objects spent 1.1 s of its
        /// 2.1 s CPU re-reading DWARF while small batches still went to it.)
        case automatic
        /// The `Runtime` module only.
        case runtime
        /// The symbolizer for every batch.
        case symbolizer
    }

    /// The default deadline of one symbolizer run.
    static let defaultTimeout = Duration.seconds(30)

    /// Which route symbolicates.
    var route: Route = .automatic
    /// The symbolizer's path, or `nil` when there is none (the `Runtime` route then does all).
    var symbolizerPath: String?
    /// How long one run of the symbolizer may take before it is killed.
    var timeout: Duration = defaultTimeout
    /// The most addresses passed to one run (as arguments, to stay far below `ARG_MAX`).
    var maximumBatch = 4_096

    /// The settings the environment asks for.
    ///
    /// - Parameters:
    ///   - toolchainLibrary: The path of the loaded `libswiftCore.so`, if known: the
    ///     toolchain's `llvm-symbolizer` sits in the `bin` folder beside its `lib` folder.
    ///   - environment: Looks a variable up; the process's environment by default.
    /// - Returns: The settings; `symbolizerPath` is resolved to an executable file or `nil`.
    static func fromEnvironment(
        toolchainLibrary: String?,
        environment lookup: (String) -> String? = processEnvironment
    ) -> SymbolicationSettings {
        func environment(_ name: String) -> String? {
            lookup(name).flatMap { $0.isEmpty ? nil : $0 }
        }
        var settings = SymbolicationSettings()
        switch environment("RETAINGRAPH_SYMBOLICATION")?.lowercased() {
        case "runtime": settings.route = .runtime
        case "symbolizer": settings.route = .symbolizer
        default: settings.route = .automatic
        }
        if let seconds = environment("RETAINGRAPH_SYMBOLIZER_TIMEOUT").flatMap(Double.init),
            seconds > 0, seconds <= 86_400
        {
            settings.timeout = .milliseconds(Int64(seconds * 1_000))
        }
        if let path = environment("RETAINGRAPH_SYMBOLIZER") {
            settings.symbolizerPath = isExecutableFile(path) ? path : nil
        } else {
            settings.symbolizerPath = findSymbolizer(
                toolchainLibrary: toolchainLibrary, searchPath: environment("PATH"))
        }
        if settings.route == .runtime { settings.symbolizerPath = nil }
        return settings
    }

    /// The toolchain's `llvm-symbolizer`, else the first one in `searchPath`'s folders.
    ///
    /// - Parameters:
    ///   - toolchainLibrary: The path of the loaded `libswiftCore.so`, if known.
    ///   - searchPath: Folders separated by `:`, as `PATH` holds them.
    /// - Returns: The path of an executable `llvm-symbolizer`, or `nil`.
    static func findSymbolizer(toolchainLibrary: String?, searchPath: String?) -> String? {
        var candidates: [String] = []
        // …/usr/lib/swift/linux/libswiftCore.so → …/usr/bin/llvm-symbolizer
        if let library = toolchainLibrary,
            let range = library.ranges(of: "/lib/swift/linux/").last
        {
            candidates.append(String(library[..<range.lowerBound]) + "/bin/llvm-symbolizer")
        }
        for folder in (searchPath ?? "").split(separator: ":") where !folder.isEmpty {
            candidates.append(folder + "/llvm-symbolizer")
        }
        return candidates.first(where: isExecutableFile)
    }

    /// Whether `path` is an absolute path to an executable regular file.
    static func isExecutableFile(_ path: String) -> Bool {
        guard path.hasPrefix("/"), access(path, X_OK) == 0 else { return false }
        var information = stat()
        return stat(path, &information) == 0 && (information.st_mode & S_IFMT) == S_IFREG
    }

    /// A variable of the process's environment (`getenv`); `nil` when unset.
    static func processEnvironment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
