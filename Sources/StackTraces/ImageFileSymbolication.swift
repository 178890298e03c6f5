internal import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Symbolication of addresses in a named image file, for code that need not be loaded here the
/// way the address says: another process's images (an attach reads a task's async frames in
/// them), and exact code addresses of this process that are not return addresses (an async
/// task's resume points, where `address - 1` would name the function before).
///
/// Each batch is one `llvm-symbolizer` run over the image's file (``ExternalSymbolication``,
/// with the same frame fields and rules as a stack trace's); addresses it cannot name get a
/// frame with their image and offset only, as do all of them when there is no symbolizer
/// (`RETAINGRAPH_SYMBOLICATION=runtime`, or none found). Answers are cached per image and
/// address for the whole process.
package enum ImageFileSymbolication {
    /// An image as its process mapped it.
    package struct Image: Hashable, Sendable {
        /// A path this process can read the image's file at.
        package var path: String
        /// The process's address minus the file's address.
        package var bias: UInt
        /// Where the image's first mapping starts in the process.
        package var base: UInt

        /// An image whose file is at `path`, mapped with `bias` from `base`.
        package init(path: String, bias: UInt, base: UInt) {
            self.path = path
            self.bias = bias
            self.base = base
        }
    }

    private struct Key: Hashable {
        var image: Image
        var address: UInt
        var exact: Bool
    }

    private struct State {
        var frames: [Key: [StackFrame]] = [:]
        var settings: SymbolicationSettings?
        var unreadable: Set<String> = []
    }

    private static let state = Locked(State())

    /// The most answers kept; past that the cache starts over.
    static let cacheLimit = 65_536

    /// The frames of each address, innermost (inlined) first, the real function last.
    ///
    /// - Parameters:
    ///   - addresses: Addresses in `image` as its process sees them.
    ///   - image: The image's file and placement.
    ///   - exact: Whether the addresses are code itself (resume points) rather than return
    ///     addresses (whose call is at `address - 1`).
    /// - Returns: One or more frames per address; an address nothing names gets one frame with
    ///   its image and offset.
    /// - Complexity: One symbolizer run (15–35 ms, then well under a millisecond per address)
    ///   for the addresses not seen before; dictionary look-ups for the others.
    package static func frames(for addresses: [UInt], in image: Image, exact: Bool) -> [UInt:
        [StackFrame]]
    {
        var result: [UInt: [StackFrame]] = [:]
        var missing: [UInt] = []
        state.withLock { state in
            for address in Set(addresses) {
                if let known = state.frames[Key(image: image, address: address, exact: exact)] {
                    result[address] = known
                } else {
                    missing.append(address)
                }
            }
        }
        guard !missing.isEmpty else { return result }
        missing.sort()
        // No lock is held while the symbolizer runs.
        var found: [UInt: [StackFrame]] = [:]
        let (settings, skip) = state.withLock { state in
            (state.settings, state.unreadable.contains(image.path))
        }
        let resolved = settings ?? currentSettings()
        if let symbolizer = resolved.symbolizerPath, !skip {
            let loaded = LoadedImage(path: image.path, bias: image.bias, base: image.base)
            switch ExternalSymbolication.symbolicate(
                missing, in: loaded, images: nil, symbolizer: symbolizer, settings: resolved,
                exact: exact)
            {
            case .resolved(let frames): found = frames
            case .imageUnreadable, .symbolizerFailed:
                state.withLock { _ = $0.unreadable.insert(image.path) }
            }
        }
        for address in missing where found[address] == nil {
            found[address] = [imageOnlyFrame(address, in: image)]
        }
        state.withLock { state in
            state.settings = resolved
            if state.frames.count + found.count > cacheLimit { state.frames.removeAll() }
            for (address, frames) in found {
                state.frames[Key(image: image, address: address, exact: exact)] = frames
            }
        }
        result.merge(found) { first, _ in first }
        return result
    }

    /// A frame with only the image and offset of `address`.
    static func imageOnlyFrame(_ address: UInt, in image: Image) -> StackFrame {
        let name = image.path.split(separator: "/").last.map(String.init) ?? image.path
        return StackFrame(
            address: address, imageName: name, imagePath: image.path,
            offsetInImage: address >= image.base ? address - image.base : nil,
            isSystem: SystemImages.contains(name))
    }

    /// The environment's settings, with the symbolizer of the toolchain this program runs on.
    private static func currentSettings() -> SymbolicationSettings {
        let core = dlsym(nil, "swift_retain").flatMap {
            LoadedImage.containing(UInt(bitPattern: $0))?.path
        }
        return SymbolicationSettings.fromEnvironment(toolchainLibrary: core)
    }
}
