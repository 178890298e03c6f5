import RetainGraph

/// Hints about timers: a strong target, a raw Foundation.Timer, a zombie, a pending one-shot.
extension HintRules {
    static func timerTarget(holder: Node, _ context: HintContext) -> LeakHint {
        let timer = holder.shortTypeName
        let subject = context.subject
        if isFoundationTimer(holder) {
            return foundationTimer(subject: subject)
        }
        if timer.contains("FrameTimer") || timer.contains("DisplayLink") {
            return LeakHint(
                code: .frameTimerTarget,
                text: "the frame timer \(timer) holds its target \(subject) strongly (like "
                    + "CADisplayLink): make a WeakProxy its target or use a closure capturing "
                    + "[weak self], and invalidate it when \(subject) goes away")
        }
        if context.path.isEmpty && !(holder.timer?.isScheduled ?? false) {
            return LeakHint(
                code: .unscheduledTimer,
                text: "\(timer) was never scheduled (not added to a run loop), so it never "
                    + "fires, yet it holds its target \(subject) strongly: invalidate it, or "
                    + "create it only when it is added to a run loop")
        }
        if case .runLoop(let thread)? = context.rootKind, !isMainThread(thread),
            let rootNote = context.rootNote
        {
            return LeakHint(
                code: .backgroundRunLoop,
                text:
                    "\(timer) is scheduled on the run loop of thread \"\(thread)\" (\(rootNote)): "
                    + "that run loop will never run again, so the timer never fires and never "
                    + "lets go of \(subject): invalidate the timer before the thread ends "
                    + "(invalidate works from any thread), or use a weak target")
        }
        if case .runLoop(let thread)? = context.rootKind, !isMainThread(thread) {
            return LeakHint(
                code: .backgroundRunLoop,
                text: "\(timer) is scheduled on the run loop of thread \"\(thread)\", which "
                    + "holds it whether or not that run loop ever runs, and the timer holds "
                    + "\(subject) strongly: invalidate the timer when \(subject) is closed "
                    + "(invalidate works from any thread), or use a weak target")
        }
        if context.cycle == nil && !context.path.isEmpty {
            return LeakHint(
                code: .heldFromRoot,
                text: "the run loop holds the timer and the timer holds \(subject) strongly, "
                    + "with no cycle (a cycle-only detector misses this): invalidate the timer "
                    + "when the owner is closed; a weak timer property does not help")
        }
        return LeakHint(
            code: .strongTimerTarget,
            text: "the timer holds its target strongly: use a weak target or WeakProxy, or "
                + "invalidate in stop() (\(timer) ⇒ target ⇒ \(subject))")
    }

    /// A raw `Foundation.Timer` keeps what its block captures: on Linux the timer is never
    /// freed and `invalidate()` does not release the block, so `[weak self]` in the block is
    /// the fix that works (checked on this platform: see LINUX-NOTES "Foundation `Timer`").
    static func foundationTimer(subject: String) -> LeakHint {
        LeakHint(
            code: .foundationTimer,
            text: "a raw Foundation.Timer holds \(subject): on Linux a Foundation.Timer is "
                + "never freed and invalidate() does not release its block, so invalidate() "
                + "alone leaves \(subject) alive: capture [weak self] in the timer's block "
                + "(and still invalidate the timer in stop()), or use RunLoopTimer")
    }

    static func zombie(timer: String, subject: String, firesIntoDeadTarget: Int) -> LeakHint {
        let evidence =
            firesIntoDeadTarget > 0
            ? " (\(firesIntoDeadTarget) fires after the target died)" : ""
        return LeakHint(
            code: .zombieTimer,
            text: "\(subject) died but \(timer) is still scheduled, repeats and never stops "
                + "by itself: it fires into nothing\(evidence). Invalidate the timer in "
                + "\(subject)'s deinit (with a wrapper: call its clearUp()); a weak proxy or "
                + "weak wrapper only hides this")
    }

    static func pendingOneShot(
        timer: String, subject: String, fireDate: Double?, now: Double?
    ) -> LeakHint {
        let when = fireDate.map { ", which " + LeakReport.describeFire(at: $0, from: now) } ?? ""
        return LeakHint(
            code: .pendingOneShot,
            text: "\(subject) is held only by the one-shot \(timer)\(when): it is released when "
                + "it fires, provided its run loop or queue runs")
    }
}
