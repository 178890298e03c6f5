// The only Swift file that imports RuntimeLayouts' door to C (Sources/CProcessMemory): safe
// reads of this process's memory, and the names of data symbols in its loaded images.
internal import CProcessMemory

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

/// The names of data symbols in the loaded images: global variables for the census's holders,
/// and the local symbols of metadata accessors that name the types the compiler hides from
/// reflection (noncopyable stored properties such as a `Mutex`).
package enum ImageSymbols {
    /// The symbol whose storage holds `address`, and where that storage starts.
    ///
    /// The corresponding C function is `dladdr1`, then a search of the image's `.symtab`
    /// (read once per image).
    ///
    /// - Complexity: O(log *s*) for an image of *s* symbols, after the image's first lookup.
    package static func symbol(containing address: UInt) -> (name: String, start: UInt)? {
        var start: UInt = 0
        guard let name = rg_symbol_at(address, &start) else { return nil }
        return (String(cString: name), start)
    }

    /// The address of the symbol `name` in the image that holds `address`, searched in its
    /// whole symbol table (an executable's own metadata accessors are local symbols, which
    /// `dlsym` cannot find).
    ///
    /// - Complexity: O(*s*) for an image of *s* symbols: call it once per name.
    package static func address(ofSymbol name: String, inImageOf address: UInt)
        -> UnsafeRawPointer?
    {
        rg_symbol_named(address, name)
    }
}
