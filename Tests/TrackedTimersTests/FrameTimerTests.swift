import Foundation
import RetainGraph
import Testing
import TrackedTimers
import _TestSupport

/// The scheduled-in-default-mode edge line for a frame timer.
let frameScheduledDefault = "runloop ⇒ FrameTimer [scheduled in mode \"kCFRunLoopDefaultMode\"]"

@Suite("FrameTimer: S12, S13")
struct FrameTimerTests {
    @Test("S13: one call per frame, timestamps on the refresh grid, frame interval honoured")
    func s13FramesAndTimestamps() throws {
        // 64 Hz so every timestamp is an exact binary fraction; one refresh per clock reading.
        let clock = FrameClock.stepping(from: 100, by: 1.0 / 64)
        var seen: [(TimeInterval, TimeInterval)] = []
        let link = try FrameTimer(
            refreshRate: 64, preferredFramesPerSecond: 32, clock: clock, graph: LiveGraph()
        ) { link in seen.append((link.timestamp, link.targetTimestamp)) }
        #expect(link.frameInterval == 2 && link.duration == 1.0 / 64)
        #expect(link.preferredFramesPerSecond == 32)
        drainRunLoop()
        #expect(seen.isEmpty)  // not added to a run loop: never fires
        try link.add(to: .current, forMode: .default)
        #expect(runRunLoop(until: { seen.count >= 3 }))
        link.invalidate()
        // Origin 100 (read at add); refreshes 1, 2, 3, … one per reading; every 2nd is a frame.
        let stamps: [TimeInterval] = seen.prefix(3).map(\.0)
        let targets: [TimeInterval] = seen.prefix(3).map(\.1)
        let expectedStamps: [TimeInterval] = [2, 4, 6].map { 100 + $0 / 64 }
        let expectedTargets: [TimeInterval] = [4, 6, 8].map { 100 + $0 / 64 }
        #expect(stamps == expectedStamps)
        #expect(targets == expectedTargets)
        #expect(link.frameCount == seen.count)
    }

    @Test("S13: dropped refreshes are skipped: one call with the latest timestamp")
    func s13DroppedFrames() throws {
        // Each reading jumps 3 refreshes: as if the thread were busy for two of every three.
        let clock = FrameClock.stepping(from: 0, by: 3.0 / 64)
        var stamps: [TimeInterval] = []
        let link = try FrameTimer(refreshRate: 64, clock: clock, graph: LiveGraph()) { link in
            stamps.append(link.timestamp)
        }
        try link.add(to: .current, forMode: .default)
        #expect(runRunLoop(until: { stamps.count >= 2 }))
        link.invalidate()
        let expected: [TimeInterval] = [3.0 / 64, 6.0 / 64]
        #expect(Array(stamps.prefix(2)) == expected)
    }

    @Test("S13: a paused frame timer stays scheduled but does not fire; invalidate removes it")
    func s13PauseAndInvalidate() throws {
        let graph = LiveGraph()
        var frames = 0
        let link = try FrameTimer(refreshRate: 200, graph: graph) { _ in frames += 1 }
        try link.add(to: .current, forMode: .default)
        #expect(runRunLoop(until: { frames >= 1 }))
        link.isPaused = true
        let atPause = frames
        drainRunLoop()
        #expect(frames == atPause)
        #expect(edgeLines(graph).contains(frameScheduledDefault))
        link.isPaused = false
        #expect(runRunLoop(until: { frames > atPause }))
        link.invalidate()
        #expect(!link.isValid)
        #expect(edgeLines(graph).isEmpty)
        #expect(throws: TimerError.invalidated) { try link.add(to: .current, forMode: .default) }
    }

    @Test(
        "S12: a strong-target link keeps the owner (S12a); a [weak self] closure frees it (S12b)",
        arguments: [true, false])
    func s12DisplayLinkOwnership(strongTarget: Bool) throws {
        let graph = LiveGraph()
        let box = WeakBox<Owner>(nil)
        var leaked: FrameTimer?
        do {
            let owner = Owner()
            box.value = owner
            if strongTarget {
                owner.link = try FrameTimer(target: owner, refreshRate: 200, graph: graph) {
                    owner, _ in owner.tick()
                }.held(by: owner, as: "link")
            } else {
                owner.link = try FrameTimer(
                    refreshRate: 200, capturing: owner, as: .weak, graph: graph
                ) { [weak owner] _ in owner?.tick() }.held(by: owner, as: "link")
            }
            try owner.link?.add(to: .current, forMode: .common)
            leaked = strongTarget ? owner.link : nil
            #expect(runRunLoop(until: { owner.ticks >= 1 }))
            let lines = edgeLines(graph)
            #expect(
                lines.contains("runloop ⇒ FrameTimer [scheduled in mode \"kCFRunLoopCommonModes\"]")
            )
            #expect(lines.contains("Owner ⇒ FrameTimer [.link]"))
            #expect(
                lines.contains(
                    strongTarget ? "FrameTimer ⇒ Owner [target]" : "closure → Owner [captures self]"
                ))
        }
        if strongTarget {
            #expect(box.value != nil)
            leaked?.invalidate()
            leaked = nil
        }
        #expect(box.value == nil)
        #expect(edgeLines(graph).isEmpty)
    }

    @Test("Extreme frame intervals and clock readings are clamped, never trap")
    func extremeValues() throws {
        let clock = FrameClock { .nan }
        var frames = 0
        let link = try FrameTimer(refreshRate: 1000, clock: clock, graph: LiveGraph()) { _ in
            frames += 1
        }
        link.frameInterval = .max
        #expect(link.frameInterval == Int(Int32.max))
        link.frameInterval = .min
        #expect(link.frameInterval == 1)
        link.preferredFramesPerSecond = .max
        #expect(link.frameInterval == 1)
        link.preferredFramesPerSecond = -5
        #expect(link.frameInterval == 1)
        try link.add(to: .current, forMode: .default)
        #expect(runRunLoop(until: { frames >= 2 }))  // NaN readings still make frames
        link.invalidate()
    }

    @Test("Bad frame rates are typed errors")
    func badFrameRates() {
        for rate in [Double.nan, .infinity, 0, -60, 1e300] {
            let error = #expect(throws: TimerError.self) {
                _ = try FrameTimer(refreshRate: rate, graph: LiveGraph()) { _ in }
            }
            guard case .invalidFrameRate(let reported)? = error else {
                Issue.record("expected invalidFrameRate, got \(String(describing: error))")
                continue
            }
            #expect(reported == rate || (reported.isNaN && rate.isNaN))
        }
        #expect(throws: TimerError.invalidFrameRate(-1)) {
            _ = try FrameTimer(preferredFramesPerSecond: -1, graph: LiveGraph()) { _ in }
        }
    }
}
