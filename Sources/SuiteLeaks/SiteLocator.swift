import HeapCensus
import LeakTracking
import RetainGraphUtilities
import StackTraces

/// Finds, in the creation stacks of a leak's objects, the line a person would change: the
/// "made at" of the at-exit report.
///
/// The rule, over a stack's symbolicated frames (inlined calls included, innermost first):
/// 1. Leave out thunks, system frames (the toolchain's, Foundation's, Dispatch's and the C
///    library's images) and the frames of ``CreationSite/runtimeModules`` (the standard library
///    and the test frameworks that call tests).
/// 2. Of the rest, prefer the frames outside the modules of the leaked types: a test that calls
///    a library's function that calls another that calls an initializer is made at the test's
///    line, not the library's.
/// 3. Among those, the first frame with `file:line` that is neither an initializer nor in a
///    dependency's checkout (`…/checkouts/…`, SwiftPM's copies of other packages: code the user
///    does not change); failing that, the first non-initializer with `file:line`, then the
///    first with `file:line`.
/// 4. When no frame lies outside the types' modules (the types are the user's own), the same
///    choice among every frame left by step 1; then the first of them at all.
///
/// Every stack of a check is symbolicated in one batch (``prepare(_:)``): one symbolizer run per
/// image, instead of one per site, which is what made a check of a real suite take seconds.
/// The answer depends only on the recorded stack and the binary, so it is the same every run.
struct SiteLocator {
    private var cache: [Key: StackFrame?] = [:]

    private struct Key: Hashable {
        let site: CreationSite
        let modules: [String]
    }

    /// Symbolicates every return address of `sites` at once, so later look-ups hit the cache.
    ///
    /// - Parameter sites: The creation sites a check will name.
    /// - Complexity: One symbolizer run per image holding a new address (see
    ///   `StackTrace.symbolicated()`), plus O(*a*) for *a* addresses.
    static func prepare(_ sites: some Sequence<CreationSite>) {
        var addresses = Set<UInt>()
        for site in sites { addresses.formUnion(site.returnAddresses) }
        guard !addresses.isEmpty else { return }
        _ = StackTrace(addresses: addresses.sorted()).symbolicated()
    }

    /// The module of a type name (`NIOCore.Channel` → `NIOCore`); nil for names without one
    /// (`closure context (captures Session)`, `[Entry] storage`).
    static func module(ofType typeName: String) -> String? {
        TypeNames.module(of: typeName).map(String.init)
    }

    /// The modules of `typeNames`, the ones whose frames are not "made at" lines.
    static func modules(ofTypes typeNames: some Sequence<String>) -> [String] {
        Set(typeNames.compactMap(module(ofType:))).sorted()
    }

    /// Where the object made at `site` was made, for a leak whose types live in `modules`.
    ///
    /// - Parameters:
    ///   - site: A creation site.
    ///   - modules: The modules of the leaked types (``modules(ofTypes:)``).
    /// - Returns: The frame (see the type's rule), or nil when the stack has no frame.
    /// - Complexity: Dictionary look-ups after ``prepare(_:)``; O(*f*) for *f* frames the first
    ///   time a site is asked about with these modules.
    mutating func madeAt(_ site: CreationSite, excluding modules: [String]) -> StackFrame? {
        let key = Key(site: site, modules: modules)
        if let known = cache[key] { return known }
        let frame = Self.choose(in: site.frames(), excluding: Set(modules))
        cache[key] = frame
        return frame
    }

    /// The rule applied to symbolicated frames, innermost first.
    static func choose(in frames: [StackFrame], excluding modules: Set<String>) -> StackFrame? {
        let candidates = frames.filter { frame in
            !frame.isThunk && !frame.isSystem
                && !frame.belongs(toAnyOf: CreationSite.runtimeModules)
        }
        let outside = candidates.filter { !$0.belongs(toAnyOf: modules) }
        return best(of: outside) ?? best(of: candidates) ?? candidates.first ?? frames.first
    }

    /// The first located frame that is neither an initializer nor a dependency's, else the first
    /// located non-initializer, else the first located frame.
    private static func best(of frames: [StackFrame]) -> StackFrame? {
        let located = frames.filter { $0.file != nil && ($0.line ?? 0) > 0 }
        return located.first { !isInitializer($0) && !isDependency($0) }
            ?? located.first { !isInitializer($0) } ?? located.first
    }

    /// Whether a frame is an initializer (`T.__allocating_init(…)`, `T.init(…)`): the place an
    /// object is made, never the call that asked for it.
    static func isInitializer(_ frame: StackFrame) -> Bool {
        guard let function = frame.function else { return false }
        return function.contains(".__allocating_init(") || function.contains(".init(")
    }

    /// Whether a frame's file lies in another package's checkout (`.build/checkouts/…`).
    static func isDependency(_ frame: StackFrame) -> Bool {
        frame.file?.contains("/checkouts/") ?? false
    }

    /// `File.swift:42` for a frame with a line; its function, or its address, otherwise.
    static func location(of frame: StackFrame) -> String {
        CreationTrace.site(file: frame.file, line: frame.line) ?? frame.function
            ?? "0x" + String(frame.address, radix: 16)
    }
}
