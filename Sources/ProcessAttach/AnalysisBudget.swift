import RetainGraphUtilities

/// How much time and memory the analysis of one captured process may take: the guard that
/// turns a hostile or corrupted heap (looping lists, billion-long counts, layouts of millions of
/// references) into a clear "gave up" instead of a hang or an out-of-memory kill.
///
/// Every stage of the analysis polls it in its loops (the heap walk per chunk, the free lists
/// per link, the scan per object, the mirror per read) and charges the memory it sizes from the
/// target's words (the scan's columns) before allocating it. Once the budget is spent, every
/// poll answers false, the stages stop early, the mirror's reads fail (so the library returns
/// quickly), and ``HeapSnapshot/capture(processID:options:)`` throws
/// ``AttachError/gaveUp(processID:reason:)`` with ``reason``.
///
/// Not thread-safe: an analysis runs on one thread.
final class AnalysisBudget {
    /// When the analysis must have finished.
    let deadline: ContinuousClock.Instant
    /// The time allowed, for the message.
    let time: Duration
    /// The most bytes the analysis may allocate from counts and sizes the target controls.
    let memory: Int
    /// The bytes charged so far.
    private(set) var charged = 0
    /// Why the analysis gave up, once it did.
    private(set) var reason: String?
    /// Polls since the clock was last read.
    private var polls = 0

    /// Polls between two readings of the clock (a reading costs tens of nanoseconds; a poll,
    /// an increment).
    static let pollsPerClockReading = 4096

    /// A budget of `time` from now and `memory` bytes.
    init(time: Duration, memory: Int) {
        self.time = time
        self.memory = memory
        deadline = .now + time
    }

    /// A budget that cannot be spent: for the reader's stages when nothing limits them.
    static var unlimited: AnalysisBudget { AnalysisBudget(time: .seconds(1 << 40), memory: .max) }

    /// Whether the budget is spent.
    var isSpent: Bool { reason != nil }

    /// Counts one step of a loop; false once the budget is spent (the caller stops).
    ///
    /// - Complexity: O(1): the clock is read once every ``pollsPerClockReading`` polls.
    @inline(__always)
    func poll() -> Bool {
        polls &+= 1
        if polls >= Self.pollsPerClockReading { return readClock() }
        return reason == nil
    }

    private func readClock() -> Bool {
        polls = 0
        guard reason == nil else { return false }
        if ContinuousClock.now > deadline {
            reason =
                "the analysis took longer than \(time.shortDescription) (a looping or "
                + "corrupted heap?)"
        }
        return reason == nil
    }

    /// Charges `bytes` about to be allocated for `what`; false (and the budget spent) when they
    /// would exceed the memory allowed.
    func charge(_ bytes: Int, for what: String) -> Bool {
        guard reason == nil else { return false }
        let (total, overflow) = charged.addingReportingOverflow(max(bytes, 0))
        guard !overflow, total <= memory else {
            reason =
                "\(what) would need more than \(ByteCount.description(memory)) of memory (counts "
                + "or sizes read from the target are implausible)"
            return false
        }
        charged = total
        return true
    }

    /// Spends the budget for `reason` (a stage found the input unreadable past repair).
    func giveUp(_ reason: String) {
        if self.reason == nil { self.reason = reason }
    }
}
