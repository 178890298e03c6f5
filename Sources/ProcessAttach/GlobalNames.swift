#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Names the global variables that hold objects: the symbol of the image's data that contains
/// the word, demangled with this process's Swift runtime (`swift_demangle`, which libswiftCore
/// exports; only names read from the target's files are passed to it).
struct GlobalNames {
    private typealias Demangle =
        @convention(c) (
            UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?,
            UInt32
        ) -> UnsafeMutablePointer<CChar>?

    private static let demangle: Demangle? = {
        guard let function = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "swift_demangle") else {
            return nil
        }
        return unsafeBitCast(function, to: Demangle.self)
    }()

    let memory: ProcessMemory
    private var cache: [UInt: String] = [:]

    init(memory: ProcessMemory) { self.memory = memory }

    /// The demangled name of the global whose storage holds target address `slot`, or its
    /// address and image when no symbol covers it.
    mutating func name(of slot: UInt) -> String {
        guard let image = memory.images.image(containing: slot) else {
            return "at 0x\(String(slot, radix: 16)) (no symbol)"
        }
        guard let symbol = image.symbol(containing: slot) else {
            let file = image.path.split(separator: "/").last.map(String.init) ?? image.path
            return "at 0x\(String(slot, radix: 16)) in \(file) (no symbol)"
        }
        let start = image.bias &+ symbol.value
        if let known = cache[start] { return known }
        let name = Self.demangled(symbol.name)
        cache[start] = name
        return name
    }

    /// `name` demangled, or as it is when it is not a Swift symbol.
    static func demangled(_ name: String) -> String {
        guard name.hasPrefix("$s") || name.hasPrefix("_T"), let demangle else { return name }
        return name.withCString { mangled in
            guard let result = demangle(mangled, strlen(mangled), nil, nil, 0) else { return name }
            defer { free(result) }
            return String(cString: result)
        }
    }
}
