/// One symbolicated frame of a ``StackTrace``: where a return address points, in readable form.
///
/// Frames are produced lazily by ``StackTrace/symbolicated()`` and cached per address, so
/// printing the same trace twice does the expensive lookup once. Any field the binary cannot
/// answer is `nil`: a stripped library has no function names, and only code built with debug
/// information (SwiftPM debug and release builds both keep `-g`) has a file and line.
///
/// ```swift
/// print(frame.formatted(index: 2))
/// // "  #2  MyApp.Owner.start() + 52 at /src/MyApp/Owner.swift:12 (MyApp)"
/// ```
public struct StackFrame: Sendable, Hashable {
    /// The return address this frame was made from.
    public var address: UInt
    /// The readable function name (demangled with the runtime's `swift_demangle`), if known.
    public var function: String?
    /// The symbol name as the binary spells it, such as `$s5MyApp5OwnerC5startyyF`, if known.
    public var mangledName: String?
    /// The file name of the image (executable or shared library) holding the address.
    public var imageName: String?
    /// The full path of that image, if known.
    public var imagePath: String?
    /// The address's distance from the start of its image, if the image is known.
    public var offsetInImage: UInt?
    /// The address's distance from the start of its function, if the function is known.
    ///
    /// Inlined frames have no entry point of their own and report 0.
    public var offsetInFunction: Int?
    /// The source file, where the image has debug information.
    public var file: String?
    /// The 1-based source line, where the image has debug information.
    public var line: Int?
    /// The 1-based source column, where the image has debug information and records one.
    public var column: Int?
    /// Whether this frame is a function the compiler inlined into the next frame.
    ///
    /// One return address can stand for several source-level calls; they come innermost first,
    /// and only the last of them, the real function, has `isInlined == false`.
    public var isInlined: Bool
    /// Whether the function is a compiler-generated Swift thunk (reabstraction, partial-apply
    /// forwarder, protocol witness and similar), which reports normally leave out.
    public var isThunk: Bool
    /// Whether the frame belongs to the system: the program's entry point, the concurrency
    /// runtime's task completion, compiler-generated code, or a toolchain or C library image.
    public var isSystem: Bool

    /// Creates a frame; every field but `address` is optional.
    ///
    /// - Parameters:
    ///   - address: The return address.
    ///   - function: The readable function name.
    ///   - mangledName: The raw symbol name.
    ///   - imageName: The image's file name.
    ///   - imagePath: The image's path.
    ///   - offsetInImage: The address minus the image's base address.
    ///   - offsetInFunction: The address minus the function's entry point.
    ///   - file: The source file.
    ///   - line: The source line.
    ///   - column: The source column.
    ///   - isInlined: Whether the call was inlined into the next frame.
    ///   - isThunk: Whether the function is a compiler-generated thunk.
    ///   - isSystem: Whether the frame belongs to the system.
    public init(
        address: UInt,
        function: String? = nil,
        mangledName: String? = nil,
        imageName: String? = nil,
        imagePath: String? = nil,
        offsetInImage: UInt? = nil,
        offsetInFunction: Int? = nil,
        file: String? = nil,
        line: Int? = nil,
        column: Int? = nil,
        isInlined: Bool = false,
        isThunk: Bool = false,
        isSystem: Bool = false
    ) {
        self.address = address
        self.function = function
        self.mangledName = mangledName
        self.imageName = imageName
        self.imagePath = imagePath
        self.offsetInImage = offsetInImage
        self.offsetInFunction = offsetInFunction
        self.file = file
        self.line = line
        self.column = column
        self.isInlined = isInlined
        self.isThunk = isThunk
        self.isSystem = isSystem
    }

    /// The Swift module the function belongs to, read from its mangled name.
    ///
    /// `nil` for C functions and for thunks whose mangling does not start with a module.
    /// Closures and specializations report the module that defines them.
    public var module: String? {
        mangledName.flatMap(Demangling.moduleName(ofMangled:))
    }

    /// Whether this frame belongs to one of `modules`.
    ///
    /// A frame with a Swift module (see ``module``) belongs to `modules` when that module is in
    /// it, compared exactly: `"RetainGraph"` does not match `RetainGraphDemo`. A frame without
    /// one (C code, some thunks) is judged by its image instead: `Foo`, `libFoo.so` and
    /// `libFoo.so.1` all belong to `"Foo"`.
    ///
    /// - Parameter modules: Module names, such as `["RetainGraph", "TrackedTimers"]`.
    /// - Returns: `true` when the frame's module, or failing that its image, is one of `modules`.
    public func belongs(toAnyOf modules: some Collection<String>) -> Bool {
        if let module { return modules.contains(module) }
        guard let imageName else { return false }
        return modules.contains(Self.imageModuleName(imageName))
    }

    /// `libFoo.so.1` → `Foo`, `Foo.so` → `Foo`, `Foo` → `Foo`.
    static func imageModuleName(_ imageName: String) -> String {
        var name = Substring(imageName)
        if let range = name.firstRange(of: ".so") { name = name[..<range.lowerBound] }
        if name.hasPrefix("lib"), name.count > 3 { name = name.dropFirst(3) }
        return String(name)
    }

    /// The frame as one line of a report, with its position in the trace.
    ///
    /// The form is `  #<index>  <function> + <offset> at <file>:<line> (<image>)`; parts that
    /// are unknown are left out, and a frame with no function shows its address instead.
    ///
    /// - Parameter index: The frame's position, 0 for the innermost.
    /// - Returns: The line, without a trailing newline.
    public func formatted(index: Int) -> String {
        "  #\(index)  \(description)"
    }
}

extension StackFrame: CustomStringConvertible {
    /// `<function> + <offset> at <file>:<line> (<image>)`, leaving out what is unknown.
    public var description: String {
        var text = function ?? "0x" + String(address, radix: 16)
        if function != nil, let offsetInFunction, offsetInFunction > 0, !isInlined {
            text += " + \(offsetInFunction)"
        }
        if isInlined {
            text += " [inlined]"
        }
        if let file {
            text += " at " + file
            if let line, line > 0 { text += ":\(line)" }
        }
        if let imageName {
            text += " (\(imageName))"
        }
        return text
    }
}
