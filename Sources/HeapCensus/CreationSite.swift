import StackTraces

/// Where a heap object was made: the return addresses of the two frames above the runtime's
/// allocating function, as the census read them from frame pointers when it recorded the object.
///
/// The first address lies in the function that called `swift_allocObject`: the allocating
/// initializer (`__allocating_init`) in a debug build, your own function when the compiler
/// inlined the initializer (release), or the function that made a closure context or a box.
/// The second lies in that function's caller. Between them they hold the line of your code that
/// made the object in either build. Nothing is looked up until you ask: ``frames()`` and
/// ``userFrame()`` symbolicate through ``/StackTraces/StackTrace`` (cached per address).
///
/// ```swift
/// HeapCensus.start()
/// let session = Session()
/// print(HeapCensus.creationSite(of: session)?.description ?? "?")  // "Sessions.swift:12"
/// ```
public struct CreationSite: Hashable, Sendable {
    /// The return address in the function that called the runtime's allocating function.
    public let allocatingCaller: UInt
    /// The return address in that function's caller; 0 when its frame record could not be read
    /// (a caller built without frame pointers).
    public let callerOfCaller: UInt

    /// Creates a site from two return addresses, innermost first.
    ///
    /// - Parameters:
    ///   - allocatingCaller: The return address in the function that allocated.
    ///   - callerOfCaller: The return address one frame further up, or 0.
    public init(allocatingCaller: UInt, callerOfCaller: UInt) {
        self.allocatingCaller = allocatingCaller
        self.callerOfCaller = callerOfCaller
    }

    /// The site's return addresses as a two-frame (or one-frame) trace, innermost first.
    public var trace: StackTrace {
        StackTrace(addresses: [allocatingCaller, callerOfCaller].filter { $0 != 0 })
    }

    /// Both frames, symbolicated, innermost first (more than two where calls were inlined).
    ///
    /// - Returns: The frames, with function names, files and lines where the binary has them.
    /// - Complexity: For addresses the process never symbolicated before, what
    ///   `StackTrace.symbolicated()` costs (one symbolizer run per image and batch, well under a
    ///   millisecond per address after it); a dictionary lookup per address after that.
    public func frames() -> [StackFrame] { trace.symbolicated() }

    /// The frame of your code that made the object: the first frame that is not an initializer
    /// (the allocating initializer, or one the compiler inlined), a thunk or a system frame.
    ///
    /// Falls back to the first frame with a source line, then to the first frame.
    ///
    /// - Returns: The frame, or nil when the site has no frame at all.
    public func userFrame() -> StackFrame? {
        let frames = frames()
        return frames.first { frame in
            guard frame.file != nil, !frame.isThunk, !frame.isSystem else { return false }
            return !Self.isInitializer(frame.function)
        } ?? frames.first { $0.file != nil } ?? frames.first
    }

    /// Whether a demangled name is an initializer (`T.__allocating_init(…)`, `T.init(…)`).
    static func isInitializer(_ function: String?) -> Bool {
        guard let function else { return false }
        return function.contains(".__allocating_init(") || function.contains(".init(")
    }
}

extension CreationSite: CustomStringConvertible {
    /// `File.swift:line` of ``userFrame()``; its function, or the address in hexadecimal, when
    /// the binary has no line for it.
    public var description: String {
        guard let frame = userFrame() else { return "0x" + String(allocatingCaller, radix: 16) }
        if let file = frame.file, let line = frame.line, line > 0 {
            let name = file.split(separator: "/").last.map(String.init) ?? file
            return "\(name):\(line)"
        }
        return frame.function ?? "0x" + String(frame.address, radix: 16)
    }
}
