internal import Locking
internal import Runtime

/// Turns return addresses into ``StackFrame``s, once per address, for the whole process.
///
/// Two routes, with the same frames: `llvm-symbolizer` (``ExternalSymbolication``), one run per
/// image and batch, and the toolchain's `Runtime` module (``RuntimeSymbolication``), which reads
/// ELF symbol tables and DWARF line tables in process. New addresses are grouped by the image
/// the dynamic loader placed them in (``LoadedImage``); a group goes to the symbolizer when its
/// image carries DWARF (``SymbolicationSettings/Route/automatic`` says why), or when the
/// `Runtime` module's image list misplaces the image; the `Runtime` module takes
/// the rest and whatever the symbolizer did not name. It does everything when there is no
/// symbolizer, after a run failed as a program (a timeout, a program that is not the
/// symbolizer: it is then not run again), or when the environment asks for it
/// (``SymbolicationSettings``). Where no route finds a symbol, the frame still gets its image
/// and offset. Results are cached per address behind a ``PthreadLock`` that ThreadSanitizer
/// understands, held only for dictionary work: no lock of ours is held while the loader
/// (`dl_iterate_phdr`, `dladdr`), the symbolizer or the `Runtime` module runs, so a thread that
/// holds the loader's lock (inside a `dl_iterate_phdr` callback) and symbolicates cannot
/// deadlock with one that symbolicates at the same time. Two threads that ask for the same new
/// address at once may both look it up (the answers are the same; the last stored stays). The
/// `Runtime` module's lookups run on a short-lived thread (``ShortLivedThread``): its per-thread
/// cache of ELF images goes with that thread instead of staying with the caller's.
final class Symbolicator: Sendable {
    /// The process-wide instance, with the settings of the environment.
    static let shared = Symbolicator()

    /// The most addresses the cache keeps; past that it starts over. Code addresses are finite,
    /// so this only bounds pathological input such as random numbers passed as addresses.
    static let cacheLimit = 65_536

    /// How many new addresses each route answered, for tests and benchmarks.
    struct RouteCounts: Equatable {
        /// Addresses the symbolizer named.
        var bySymbolizer = 0
        /// Addresses sent to the `Runtime` module (small batches and what the symbolizer missed).
        var byRuntime = 0
    }

    private struct State {
        var frames: [UInt: [StackFrame]] = [:]
        var images: ImageMap?
        /// The settings read from the environment at the first lookup.
        var settings: SymbolicationSettings?
        /// Images the symbolizer could not read.
        var unreadableImages: Set<String> = []
        /// Whether each image seen so far carries its own DWARF line table, by path.
        var lineTables: [String: Bool] = [:]
        /// Whether a run of the symbolizer failed as a program; it is then not run again.
        var symbolizerFailed = false
        var counts = RouteCounts()
    }

    private let state = Locked(State())
    /// Settings given at creation, used instead of the environment's.
    private let configured: SymbolicationSettings?

    /// Creates a symbolicator with an empty cache.
    ///
    /// - Parameter settings: The routes' settings; `nil` reads them from the environment at the
    ///   first lookup.
    init(settings: SymbolicationSettings? = nil) {
        configured = settings
    }

    /// The frames for each address, in order, looking up only addresses not seen before.
    ///
    /// - Parameter addresses: Return addresses, innermost first.
    /// - Returns: One array of frames per address (more than one when calls were inlined).
    /// - Complexity: O(*n*) dictionary look-ups when every address is cached. Otherwise, per
    ///   image with DWARF, one symbolizer run (15–35 ms, then well under a millisecond per
    ///   address); 30–300 µs per address of a library without DWARF;
    ///   plus 0.4 ms to read the image list the first time or after a library was loaded.
    func frames(for addresses: [UInt]) -> [[StackFrame]] {
        if let cached = cachedFrames(for: addresses) { return cached }
        let missing = state.withLock { state in
            Array(Set(addresses.filter { state.frames[$0] == nil }))
        }
        // No lock is held from here on while the loader and the routes run.
        let found = missing.isEmpty ? [:] : resolve(missing)
        return state.withLock { state in
            addresses.map { found[$0] ?? state.frames[$0] ?? [StackFrame(address: $0)] }
        }
    }

    /// How many new addresses each route answered since the symbolicator was made.
    var routeCounts: RouteCounts { state.withLock { $0.counts } }

    /// Whether a symbolizer run failed as a program, so that the `Runtime` module does all.
    var symbolizerHasFailed: Bool { state.withLock { $0.symbolizerFailed } }

    /// Forgets every cached frame and the image list (for tests and after `dlclose`).
    func removeAll() {
        state.withLock { state in
            state.frames = [:]
            state.images = nil
        }
    }

    private func cachedFrames(for addresses: [UInt]) -> [[StackFrame]]? {
        state.withLock { state in
            var result: [[StackFrame]] = []
            result.reserveCapacity(addresses.count)
            for address in addresses {
                guard let frames = state.frames[address] else { return nil }
                result.append(frames)
            }
            return result
        }
    }

    /// Looks up `missing`, stores the results and returns them. Called with no lock held.
    private func resolve(_ missing: [UInt]) -> [UInt: [StackFrame]] {
        var images =
            state.withLock { $0.images }
            ?? ShortLivedThread.run { RuntimeSymbolication.captureImages() }
        if missing.contains(where: { !RuntimeSymbolication.contains(images, $0) }) {
            // A library may have been loaded since the list was read.
            images = ShortLivedThread.run { RuntimeSymbolication.captureImages() }
        }
        let lookup = missing.filter { $0 > 0 }
        var resolved = symbolizerFrames(lookup, images: images)
        let rest = lookup.filter { resolved[$0] == nil }
        if !rest.isEmpty,
            let frames = ShortLivedThread.run({
                RuntimeSymbolication.symbolicate(rest, images: images)
            })
        {
            resolved.merge(frames) { fromSymbolizer, _ in fromSymbolizer }
        }
        var found: [UInt: [StackFrame]] = [:]
        for address in missing {
            if let frames = resolved[address], frames.contains(where: { $0.function != nil }) {
                found[address] = frames
            } else {
                found[address] = [RuntimeSymbolication.imageOnlyFrame(address, images: images)]
            }
        }
        state.withLock { state in
            state.images = images
            state.counts.bySymbolizer += lookup.count - rest.count
            state.counts.byRuntime += rest.count
            if state.frames.count + found.count > Self.cacheLimit {
                state.frames.removeAll(keepingCapacity: true)
            }
            state.frames.merge(found) { _, new in new }
        }
        return found
    }

    /// The symbolizer's frames for the images whose batch it should take; `[:]` when the
    /// `Runtime` route does all. Called with no lock held.
    ///
    /// On the automatic route an image's batch goes to the symbolizer when the image carries
    /// DWARF line tables (``ImageDebugInfo``), or when the `Runtime` module's image
    /// list misplaces that image (see ``LoadedImage``), where the `Runtime` module would look
    /// every address up at the wrong place. Images without DWARF (stripped system libraries)
    /// stay with the `Runtime` module, which only searches their symbol tables, faster than a
    /// symbolizer run.
    private func symbolizerFrames(_ addresses: [UInt], images: ImageMap) -> [UInt: [StackFrame]] {
        let settings = settings(images: images)
        guard settings.route != .runtime, let symbolizer = settings.symbolizerPath,
            !state.withLock({ $0.symbolizerFailed })
        else { return [:] }
        var byImage: [LoadedImage: [UInt]] = [:]
        for address in addresses where address > 1 {
            if let image = LoadedImage.containing(address - 1) {
                byImage[image, default: []].append(address)
            }
        }
        var found: [UInt: [StackFrame]] = [:]
        for (image, batch) in byImage.sorted(by: { $0.key.base < $1.key.base }) {
            let wanted =
                settings.route == .symbolizer
                || !RuntimeSymbolication.placesRight(images, batch[0], image)
                || hasLineTable(image)
            guard wanted, !state.withLock({ $0.unreadableImages.contains(image.path) }) else {
                continue
            }
            switch ExternalSymbolication.symbolicate(
                batch, in: image, images: images, symbolizer: symbolizer, settings: settings)
            {
            case .resolved(let frames):
                found.merge(frames) { first, _ in first }
            case .imageUnreadable:
                state.withLock { _ = $0.unreadableImages.insert(image.path) }
            case .symbolizerFailed:
                state.withLock { $0.symbolizerFailed = true }
                return found
            }
        }
        return found
    }

    /// Whether `image`'s file carries a DWARF line table, read once per image.
    private func hasLineTable(_ image: LoadedImage) -> Bool {
        if let known = state.withLock({ $0.lineTables[image.path] }) { return known }
        let found = ImageDebugInfo.hasLineTable(atPath: image.path)
        state.withLock { $0.lineTables[image.path] = found }
        return found
    }

    /// The settings given at creation, else those of the environment (read once).
    private func settings(images: ImageMap) -> SymbolicationSettings {
        if let configured { return configured }
        if let settings = state.withLock({ $0.settings }) { return settings }
        let settings = SymbolicationSettings.fromEnvironment(
            toolchainLibrary: RuntimeSymbolication.path(ofImageNamed: "libswiftCore.so", in: images)
        )
        state.withLock { $0.settings = settings }
        return settings
    }
}
