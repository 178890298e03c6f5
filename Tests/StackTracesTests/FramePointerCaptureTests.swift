import StackTraces
import Testing

/// Recurses `levels` times, then captures from frame pointers; a frame per level.
@inline(never)
func framePointerCaptureAfterRecursing(_ levels: Int, depth: Int, skipping: Int = 0)
    -> StackTrace
{
    if levels <= 0 {
        return StackTrace.captureFromFramePointers(depth: depth, skipping: skipping)
    }
    let trace = framePointerCaptureAfterRecursing(levels - 1, depth: depth, skipping: skipping)
    return withExtendedLifetime(levels) { trace }
}

/// The libunwind twin of the recursion above, through the same shape of frames.
@inline(never)
func unwoundCaptureAfterRecursing(_ levels: Int, depth: Int) -> StackTrace {
    if levels <= 0 { return StackTrace.capture(depth: depth) }
    let trace = unwoundCaptureAfterRecursing(levels - 1, depth: depth)
    return withExtendedLifetime(levels) { trace }
}

/// The frame-pointer capture: what it finds, where it starts, and its limits.
@Suite("Frame-pointer capture")
struct FramePointerCaptureTests {
    #if arch(x86_64)
    @Test(arguments: [1, 8, 32, 64])
    func aDeepStackFillsTheRequestedDepthExactly(depth: Int) {
        let trace = framePointerCaptureAfterRecursing(80, depth: depth)
        #expect(trace.addresses.count == depth)
    }

    @Test func theTraceStartsAtTheCallerAndNamesItsFunction() throws {
        let trace = framePointerCaptureAfterRecursing(3, depth: 8)
        let frames = trace.symbolicated().filter { !$0.isInlined }
        let first = try #require(frames.first)
        #expect(
            first.function?.contains("framePointerCaptureAfterRecursing") == true,
            "\(frames.map(\.description))")
    }

    @Test func theSameRecursionGivesTheSameFramesAsLibunwind() {
        // Every frame between the capture and the test is Swift code with frame pointers:
        // the two walks agree on the frames both see, apart from the recursion's own call
        // sites (each capture's recursion is its own function).
        let walked = framePointerCaptureAfterRecursing(6, depth: 32)
        let unwound = unwoundCaptureAfterRecursing(6, depth: 32)
        #expect(walked.addresses.count >= 8)
        let walkedTail = Array(walked.addresses.dropFirst(8).prefix(6))
        let unwoundTail = Array(unwound.addresses.dropFirst(8).prefix(6))
        #expect(walkedTail == unwoundTail, "\(walked) \(unwound)")
    }

    @Test func skippingLeavesOutTheCallersInnermostFrames() {
        let full = framePointerCaptureAfterRecursing(4, depth: 16)
        let skipped = framePointerCaptureAfterRecursing(4, depth: 16, skipping: 2)
        #expect(Array(full.addresses[2...4]) == Array(skipped.addresses[0...2]))
    }
    #endif

    @Test(arguments: [0, -1, Int.min])
    func aDepthOfZeroOrLessGivesAnEmptyTrace(depth: Int) {
        #expect(StackTrace.captureFromFramePointers(depth: depth).isEmpty)
    }

    @Test func aDepthAboveTheMaximumIsClamped() {
        let trace = framePointerCaptureAfterRecursing(300, depth: .max)
        #expect(trace.addresses.count <= StackTrace.maximumDepth)
    }
}
