import StackTraces

/// Where a heap object was made: its creation stack, as the census read it from frame pointers
/// when it recorded the object.
///
/// The stack holds up to ``maximumDepth`` return addresses, innermost first. The first lies in
/// the function that called `swift_allocObject`: the allocating initializer
/// (`__allocating_init`) in a debug build, your own function when the compiler inlined the
/// initializer (release), or the function that made a closure context or a box. The second lies
/// in that function's caller, and so on outwards, so the line of your code that made the object
/// is there even when it called a library that called an initializer several calls deep. The
/// census stores each distinct stack once and keeps its number in unused bits of its own entry
/// for the object; once a long process has made more distinct stacks than the numbers for whole
/// stacks, a new one is kept at its innermost frames (8, then fewer): see
/// ``HeapCensus/creationSiteCount``.
///
/// Nothing is looked up until you ask: ``frames()``, ``userFrame()`` and
/// ``userFrame(excludingModules:)`` symbolicate through ``/StackTraces/StackTrace`` (cached
/// per address).
///
/// ```swift
/// HeapCensus.start()
/// let session = Session()
/// print(HeapCensus.creationSite(of: session)?.description ?? "?")  // "Sessions.swift:12"
/// ```
public struct CreationSite: Hashable, Sendable {
    /// The most return addresses a creation stack keeps: 16.
    ///
    /// Enough for a test's line that calls a library's function that calls an initializer a
    /// few calls deep, with room for the test runner's frames above it; each further frame
    /// costs every recorded allocation a read of the stack and a compare.
    public static let maximumDepth = 16

    /// The creation stack's return addresses, innermost first: the allocating function's
    /// caller, its caller, and so on (at most ``maximumDepth``).
    public let returnAddresses: [UInt]

    /// The return address in the function that called the runtime's allocating function.
    public var allocatingCaller: UInt { returnAddresses.first ?? 0 }

    /// The return address in that function's caller; 0 when its frame record could not be read
    /// (a caller built without frame pointers).
    public var callerOfCaller: UInt { returnAddresses.count > 1 ? returnAddresses[1] : 0 }

    /// Creates a site from a creation stack's return addresses, innermost first.
    ///
    /// - Parameter returnAddresses: Return addresses, such as those of a captured
    ///   ``/StackTraces/StackTrace``; zeros and everything after the first zero are left out.
    public init(returnAddresses: [UInt]) {
        self.returnAddresses = Array(returnAddresses.prefix { $0 != 0 })
    }

    /// Creates a site from two return addresses, innermost first.
    ///
    /// - Parameters:
    ///   - allocatingCaller: The return address in the function that allocated.
    ///   - callerOfCaller: The return address one frame further up, or 0.
    public init(allocatingCaller: UInt, callerOfCaller: UInt) {
        self.init(returnAddresses: [allocatingCaller, callerOfCaller])
    }

    /// The site's two innermost return addresses as a trace (``allocatingCaller`` and
    /// ``callerOfCaller``), what a site held before it kept the whole stack.
    ///
    /// Reports built on it keep their former choices; use ``stack`` for every frame.
    public var trace: StackTrace { StackTrace(addresses: Array(returnAddresses.prefix(2))) }

    /// The whole creation stack as a trace, innermost first.
    public var stack: StackTrace { StackTrace(addresses: returnAddresses) }

    /// Every frame of the creation stack, symbolicated, innermost first (more frames than
    /// addresses where calls were inlined).
    ///
    /// - Returns: The frames, with function names, files and lines where the binary has them.
    /// - Complexity: For addresses the process never symbolicated before, what
    ///   `StackTrace.symbolicated()` costs (one symbolizer run per image and batch, well under a
    ///   millisecond per address after it); a dictionary lookup per address after that.
    public func frames() -> [StackFrame] { stack.symbolicated() }

    /// The frame of your code that made the object: the first frame that is not an initializer
    /// (the allocating initializer, or one the compiler inlined), a thunk or a system frame.
    ///
    /// Falls back to the first frame with a source line, then to the first frame. To skip the
    /// frames of libraries whose initializers you called, use ``userFrame(excludingModules:)``.
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
        return Self.location(of: frame)
    }

    /// `File.swift:line` of a frame, else its function, else its address in hexadecimal.
    static func location(of frame: StackFrame) -> String {
        if let file = frame.file, let line = frame.line, line > 0 {
            let name = file.split(separator: "/").last.map(String.init) ?? file
            return "\(name):\(line)"
        }
        return frame.function ?? "0x" + String(frame.address, radix: 16)
    }
}
