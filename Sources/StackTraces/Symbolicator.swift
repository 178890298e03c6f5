internal import Locking
internal import Runtime

/// Turns return addresses into ``StackFrame``s, once per address, for the whole process.
///
/// Route: the toolchain's `Runtime` module (see ``RuntimeSymbolication``), which reads ELF
/// symbol tables and DWARF line tables in process. Where it finds no symbol, the frame still
/// gets its image and offset from the `Runtime` module's image list. Results are cached per
/// address behind a ``PthreadLock`` that ThreadSanitizer understands; slow lookups are
/// serialized by a second lock so two threads never symbolicate the same address twice, and no
/// user code ever runs under either lock.
final class Symbolicator: Sendable {
    /// The process-wide instance.
    static let shared = Symbolicator()

    /// The most addresses the cache keeps; past that it starts over. Code addresses are finite,
    /// so this only bounds pathological input such as random numbers passed as addresses.
    static let cacheLimit = 65_536

    private struct State {
        var frames: [UInt: [StackFrame]] = [:]
        var images: ImageMap?
    }

    private let state = Locked(State())
    private let lookupLock = PthreadLock()

    /// The frames for each address, in order, looking up only addresses not seen before.
    ///
    /// - Parameter addresses: Return addresses, innermost first.
    /// - Returns: One array of frames per address (more than one when calls were inlined).
    /// - Complexity: O(*n*) dictionary look-ups when every address is cached; otherwise about
    ///   0.1–0.3 ms per new address, plus 0.4 ms to read the image list the first time or after
    ///   a library was loaded.
    func frames(for addresses: [UInt]) -> [[StackFrame]] {
        if let cached = cachedFrames(for: addresses) { return cached }
        return lookupLock.withLock {
            let missing = state.withLock { state in
                Array(Set(addresses.filter { state.frames[$0] == nil }))
            }
            if !missing.isEmpty { resolve(missing) }
            return state.withLock { state in
                addresses.map { state.frames[$0] ?? [StackFrame(address: $0)] }
            }
        }
    }

    /// Forgets every cached frame and the image list (for tests and after `dlclose`).
    func removeAll() {
        state.withLock { $0 = State() }
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

    /// Looks up `missing` and stores the results. Called with `lookupLock` held.
    private func resolve(_ missing: [UInt]) {
        var images = state.withLock { $0.images } ?? RuntimeSymbolication.captureImages()
        if missing.contains(where: { !RuntimeSymbolication.contains(images, $0) }) {
            // A library may have been loaded since the list was read.
            images = RuntimeSymbolication.captureImages()
        }
        let lookup = missing.filter { $0 > 0 }
        let resolved = RuntimeSymbolication.symbolicate(lookup, images: images) ?? [:]
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
            if state.frames.count + found.count > Self.cacheLimit {
                state.frames.removeAll(keepingCapacity: true)
            }
            state.frames.merge(found) { _, new in new }
        }
    }
}
