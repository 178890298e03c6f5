internal import CSwiftRuntime

/// A reference that keeps an object's memory allocated, not the object alive, and hands out
/// the object only while it lives: a weak reference without the weak reference's side table.
///
/// ## Why not `weak`
/// The first weak reference to a Swift object moves its reference counts into a side table,
/// and from then on every retain and release of the object takes the runtime's slow path
/// (about twice the instructions). The graph watches objects that are retained and released
/// all the time (the run loops and dispatch queues timers are scheduled on, targets, owners);
/// holding them weakly slowed the host app's own code. A pin takes an *unowned* count instead,
/// which lives in the object's inline counts: the object's retains and releases stay on the
/// fast path.
///
/// ## How it stays safe
/// The unowned count keeps the object's memory from being freed (and its address from being
/// reused) until ``release()``; ``load()`` retains the object only if it is not being
/// deinitialised (`swift_tryRetain`, the primitive a weak load uses), so a pin never revives a
/// dying object. These are entry points of the Swift runtime's stable ABI (`swift_unownedRetain`,
/// `swift_unownedRelease`, `swift_tryRetain`), the same ones `unowned` references compile to.
///
/// ## The price
/// A dead object's memory (its instance, not what it referred to: that was released by its
/// `deinit`) stays allocated until its pin is released, where a weak reference kept only the
/// side table. The graph releases a dead object's pin when it prunes the object's node.
///
/// A pin is a value with manual ownership: exactly one ``release()`` per pin, by whoever
/// drops it (a node record's or a proxy's `deinit`, a tracker forgetting a target).
package struct ObjectPin: @unchecked Sendable {
    /// The pinned object's address.
    let address: UnsafeMutableRawPointer

    /// Pins `object`'s memory.
    package init(_ object: AnyObject) {
        address = Unmanaged.passUnretained(object).toOpaque()
        _ = swift_unownedRetain(address)
    }

    /// The pin already taken on the object at `address` (the graph keeps the addresses of the
    /// objects it pinned in its node table, not the pins).
    package init(pinnedAt address: UnsafeMutableRawPointer) {
        self.address = address
    }

    /// The object if it is alive, retained for the caller; `nil` once it began deinitialising.
    @inline(__always)
    package func load() -> AnyObject? {
        guard swift_tryRetain(address) != nil else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(address).takeRetainedValue()
    }

    /// Whether the object has not begun deinitialising, read without retaining it
    /// (`swift_isDeallocating`): no strong reference is made, so none has to be released, and
    /// no `deinit` can run because of the check.
    @inline(__always)
    package var isAlive: Bool { !swift_isDeallocating(address) }

    /// Whether the pin holds `object` (pins keep addresses unique, so the address decides).
    @inline(__always)
    package func holds(_ object: AnyObject) -> Bool {
        address == Unmanaged.passUnretained(object).toOpaque()
    }

    /// Lets the object's memory go; call once, when the pin is dropped.
    package func release() { swift_unownedRelease(address) }
}
