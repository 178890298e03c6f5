// The only Swift file that imports RuntimeLayouts' door to C (Sources/CProcessMemory): safe
// and uninstrumented reads of this process's memory; and the names of its data symbols.
internal import CProcessMemory
import Locking
import RetainGraphUtilities

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether this process's memory can be read, asked of the kernel, so that a word that may
/// not be a pointer (read from an object not yet initialised, or freed) is never dereferenced
/// blindly.
package enum ReadableMemory {
    /// Whether `[address, address + length)` can be read without a fault (`length` at most
    /// 256).
    ///
    /// The corresponding C function is `process_vm_readv` on this process.
    ///
    /// - Complexity: One system call (about a microsecond).
    package static func contains(_ address: UInt, length: Int) -> Bool {
        guard address >= 4096, length > 0 else { return false }
        return rg_memory_is_readable(address, min(length, 256))
    }
}

/// The names of data symbols in this process's loaded images, read from their files' symbol
/// tables with the package's one ELF reader (the one an attach reads another process's images
/// with): global variables for the census's holders, and the local symbols of metadata
/// accessors that name the types the compiler hides from reflection (noncopyable stored
/// properties such as a `Mutex`).
package enum ImageSymbols {
    /// The images opened so far, each the first time an address in it was asked about.
    private static let images = Locked<[LoadedImage]>([])

    private static func image(containing address: UInt) -> LoadedImage? {
        if let found = images.withLock({ $0.first { $0.contains(address) } }) { return found }
        // Read outside the lock: reading the maps and mapping a file takes milliseconds.
        let process = getpid()
        let mappings = ProcessFiles.mappings(of: process) ?? []
        guard
            let path = mappings.first(where: { $0.range.contains(address) && $0.isFile })?.path
                ?? nearestImagePath(of: address, in: mappings),
            let file = ELFFile(path: path),
            let image = LoadedImage(
                path: path, file: file,
                mappings: ImageTable.loadedMappings(mappings.filter { $0.path == path }))
        else { return nil }
        images.withLock { $0.append(image) }
        return image.contains(address) ? image : nil
    }

    /// The image whose `.bss` may hold `address`: the file mapped right below the anonymous
    /// mapping that holds it.
    private static func nearestImagePath(of address: UInt, in mappings: [Mapping]) -> String? {
        mappings.last { $0.isFile && $0.range.lowerBound <= address }?.path
    }

    /// The symbol whose storage holds `address`, and where that storage starts.
    ///
    /// - Complexity: O(log *s*) for an image of *s* symbols, after the image's first lookup.
    package static func symbol(containing address: UInt) -> (name: String, start: UInt)? {
        guard let image = image(containing: address),
            let symbol = image.symbol(containing: address)
        else { return nil }
        return (symbol.name, image.bias &+ symbol.value)
    }

    /// The address of the symbol `name` in the image that holds `address`, searched in its
    /// whole symbol table (an executable's own metadata accessors are local symbols, which
    /// `dlsym` cannot find).
    ///
    /// - Complexity: O(*s*) for an image of *s* symbols: call it once per name.
    package static func address(ofSymbol name: String, inImageOf address: UInt)
        -> UnsafeRawPointer?
    {
        image(containing: address)?.address(ofAnySymbol: name).flatMap {
            UnsafeRawPointer(bitPattern: $0)
        }
    }
}

/// Loads of memory another thread may be writing, which ThreadSanitizer does not see (see
/// `rg_load_word` in the C door): the one way the heap readers load object words.
package enum RacyMemory {
    /// The word at `address`, which the caller knows is mapped.
    @inline(__always)
    package static func load(_ address: UInt) -> UInt { rg_load_word(address) }

    /// Asks the processor for the cache line at `address`, to be loaded soon: a hint that
    /// never faults, whatever the address.
    @inline(__always)
    package static func prefetch(_ address: UInt) { rg_prefetch(address) }

    /// Copies `count` bytes from `address`, which the caller knows are mapped.
    package static func copy(from address: UInt, into buffer: UnsafeMutableRawPointer, count: Int) {
        rg_copy_bytes(buffer, address, count)
    }
}
