// PRIVATE SWIFT-CORELIBS-FOUNDATION DETAILS, read remotely.
//
// Relied on: a `Foundation.Timer` keeps its CoreFoundation timer in the stored property
// `_timerStorage`; a CoreFoundation object starts with its class word, a Swift reference count
// and `_cfinfoa`, whose bit 3 is the run-loop timer's "valid" flag (cleared by `invalidate()`).

/// Whether a `Foundation.Timer` of the target is still valid (scheduled, or able to fire).
enum TimerState {
    /// Whether the timer at `timer`, of layout `layout`, is valid; true when its state cannot
    /// be read (a timer is valid until invalidated, and most are never invalidated).
    static func isValid(timer: UInt, layout: RemoteLayout, memory: ProcessMemory) -> Bool {
        guard let offset = layout.timerStorageOffset,
            let cfTimer = memory.word(at: timer + UInt(offset)), cfTimer != 0,
            let info = memory.word(at: cfTimer + 16)
        else { return true }
        return (info >> 3) & 1 != 0
    }
}
