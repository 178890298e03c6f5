import Foundation

/// Drives the current thread's run loop until `condition` holds or `deadline` passes.
///
/// Tests never sleep and hope: they run the loop in short slices and re-check, with a generous
/// deadline so a loaded 2-core CI machine does not fail them.
///
/// - Returns: Whether the condition held before the deadline.
@discardableResult
public func runRunLoop(
    mode: RunLoop.Mode = .default, until condition: () -> Bool,
    timeout: TimeInterval = 30, slice: TimeInterval = 0.01
) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        _ = RunLoop.current.run(mode: mode, before: Date().addingTimeInterval(slice))
    }
    return true
}

/// Waits (without a run loop) until `condition` holds or `timeout` passes, yielding the CPU.
///
/// For conditions fulfilled by dispatch queues or other threads.
@discardableResult
public func waitUntil(timeout: TimeInterval = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        usleep(1_000)
    }
    return true
}
