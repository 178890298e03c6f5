/// A library whose objects are made three calls below the caller's line: a test calls
/// ``WidgetFactory/make()``, which calls an assembler, which calls ``Widget``'s initializer.
/// Neither of the two innermost frames of a `Widget`'s creation stack is the caller's.

/// An object a caller never makes directly.
public final class Widget {
    /// Its parts, so that the object has fields of its own.
    public let parts: [Int]

    init(parts: Int) { self.parts = Array(0..<parts) }
}

/// The library's public way to make a widget.
public enum WidgetFactory {
    /// Makes a widget through two more calls of the library's own.
    ///
    /// - Returns: A new widget.
    @inline(never)
    public static func make() -> Widget { Assembler(parts: 3).assemble() }
}

/// The library's internal step between the factory and the initializer.
struct Assembler {
    let parts: Int

    @inline(never)
    func assemble() -> Widget { Widget(parts: parts) }
}
