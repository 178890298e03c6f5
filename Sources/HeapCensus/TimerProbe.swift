import Foundation

/// What the census asks of `Foundation.Timer` objects, the one Foundation type it names.
enum TimerProbe {
    /// Whether the class whose metadata is at `metadata` is `Timer` or inherits from it.
    static func isTimerClass(metadata: UInt) -> Bool {
        guard let pointer = UnsafeRawPointer(bitPattern: metadata),
            RuntimeKind.isClass(pointer)
        else { return false }
        let type: AnyClass = unsafeBitCast(pointer, to: AnyClass.self)
        return type is Timer.Type
    }

    /// Whether the timer at `address` is still valid (scheduled, or able to be).
    ///
    /// Safe because corelibs Foundation never frees a `Timer` (its initialiser stores a
    /// retained reference to itself in the CoreFoundation timer, which nothing releases), so
    /// the object a snapshot saw is still there.
    static func isValid(at address: UInt) -> Bool {
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return false }
        let timer = Unmanaged<Timer>.fromOpaque(pointer).takeUnretainedValue()
        return timer.isValid
    }
}

/// The metadata kind word, read without the reflection module's types.
enum RuntimeKind {
    /// Whether metadata describes a Swift class (kind 0 on Linux).
    static func isClass(_ metadata: UnsafeRawPointer) -> Bool {
        metadata.load(as: UInt.self) == 0
    }
}
