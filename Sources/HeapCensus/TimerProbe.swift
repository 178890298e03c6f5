import Foundation
import RuntimeLayouts

/// What the census asks of `Foundation.Timer` and `Foundation.Thread` objects, the Foundation
/// types whose outside holders it names.
enum TimerProbe {
    /// Whether the class whose metadata is at `metadata` is `Thread` or inherits from it.
    static func isThreadClass(metadata: UInt) -> Bool {
        guard let pointer = UnsafeRawPointer(bitPattern: metadata),
            RuntimeKind.isClass(pointer)
        else { return false }
        let type: AnyClass = unsafeBitCast(pointer, to: AnyClass.self)
        return type is Thread.Type
    }

    /// Whether the thread at `address` is still running, and its name, read from the object
    /// retained through the census (nil when it died since the scan).
    ///
    /// corelibs Foundation's `Thread.name` getter answers with the *calling* thread's name, so
    /// the name is read from the thread's pthread (`pthread_getname_np`, the name the thread
    /// set on itself when it started), found through the object's `_thread` property.
    static func runningThread(at address: UInt) -> (isRunning: Bool, name: String?)? {
        guard let thread = CensusDoor.object(at: address) as? Thread else { return nil }
        guard thread.isExecuting, !thread.isFinished else { return (false, nil) }
        let handle = Mirror(reflecting: thread).children.first { $0.label == "_thread" }?.value
        guard let pthread = (handle as? UInt?) ?? nil, pthread != 0,
            ReadableMemory.contains(pthread, length: 1024)
        else { return (true, nil) }
        return (true, CensusDoor.threadName(pthread))
    }

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
