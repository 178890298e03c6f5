import StackTraces

/// Names the global variables that hold objects: the symbol of the image's data that contains
/// the word, demangled with this process's Swift runtime (`Demangling`, over `swift_demangle`;
/// only names read from the target's files are passed to it).
struct GlobalNames {
    let memory: ProcessMemory
    private var cache: [UInt: String] = [:]

    init(memory: ProcessMemory) { self.memory = memory }

    /// The variable whose storage holds target address `slot`: where its storage starts (the
    /// word itself when no symbol covers it) and its demangled name, or its address and image
    /// when no symbol names it.
    mutating func variable(at slot: UInt) -> (start: UInt, name: String) {
        guard let image = memory.images.image(containing: slot) else {
            return (slot, "at 0x\(String(slot, radix: 16)) (no symbol)")
        }
        guard let symbol = image.symbol(containing: slot) else {
            let file = image.path.split(separator: "/").last.map(String.init) ?? image.path
            return (slot, "at 0x\(String(slot, radix: 16)) in \(file) (no symbol)")
        }
        let start = image.bias &+ symbol.value
        if let known = cache[start] { return (start, known) }
        let name = Demangling.demangle(symbol.name)
        cache[start] = name
        return (start, name)
    }
}
