import StackTraces
import Testing

/// Recurses `levels` times, then captures; keeps a frame per level (no tail call).
@inline(never)
func captureAfterRecursing(_ levels: Int, depth: Int, skipping: Int = 0) -> StackTrace {
    if levels <= 0 {
        return StackTrace.capture(depth: depth, skipping: skipping)
    }
    let trace = captureAfterRecursing(levels - 1, depth: depth, skipping: skipping)
    return withExtendedLifetime(levels) { trace }
}

/// A helper that captures on behalf of its caller, skipping its own frame.
@inline(never)
func captureForCaller() -> StackTrace {
    let trace = StackTrace.capture(skipping: 1)
    return withExtendedLifetime(trace) { trace }
}

@Suite("Capture depth")
struct CaptureDepthTests {
    @Test func defaultDepthIsThirtyTwoAndMaximumIsTwoHundredFiftySix() {
        #expect(StackTrace.defaultDepth == 32)
        #expect(StackTrace.maximumDepth == 256)
    }

    @Test func depthZeroGivesAnEmptyTrace() {
        #expect(StackTrace.capture(depth: 0).isEmpty)
        #expect(StackTrace.capture(depth: 0) == .empty)
    }

    @Test(arguments: [-1, -32, Int.min])
    func negativeDepthGivesAnEmptyTrace(depth: Int) {
        #expect(StackTrace.capture(depth: depth).isEmpty)
    }

    @Test(arguments: [1, 8, 32, 64])
    func deepStackFillsTheRequestedDepthExactly(depth: Int) {
        let trace = captureAfterRecursing(80, depth: depth)
        #expect(trace.addresses.count == depth)
    }

    @Test(arguments: [257, 1000, Int.max])
    func depthAboveTheMaximumIsClamped(depth: Int) {
        let trace = captureAfterRecursing(300, depth: depth)
        #expect(trace.addresses.count == StackTrace.maximumDepth)
    }

    @Test func shallowStackGivesFewerFramesThanRequested() {
        let trace = StackTrace.capture(depth: StackTrace.maximumDepth)
        #expect(!trace.isEmpty)
        #expect(trace.addresses.count < StackTrace.maximumDepth)
    }

    @Test func skippingLeavesOutTheCallersInnermostFrames() throws {
        let full = captureAfterRecursing(4, depth: 16)
        let skipped = captureAfterRecursing(4, depth: 16, skipping: 2)
        // Both captures pass through the same recursion call site before reaching this test.
        #expect(Array(full.addresses[2...4]) == Array(skipped.addresses[0...2]))
        #expect(full.addresses.count == skipped.addresses.count + 2 || full.addresses.count == 16)
        let helperTrace = captureForCaller()
        let viaHelper = try #require(helperTrace.symbolicated().first?.function)
        #expect(viaHelper.contains("skippingLeavesOutTheCallersInnermostFrames"))
    }

    @Test(arguments: [-1, Int.min])
    func negativeSkippingIsTreatedAsZero(skipping: Int) {
        let plain = captureAfterRecursing(3, depth: 6)
        let negative = captureAfterRecursing(3, depth: 6, skipping: skipping)
        #expect(Array(plain.addresses.prefix(4)) == Array(negative.addresses.prefix(4)))
    }

    @Test(arguments: [StackTrace.examinedFrameLimit, Int.max])
    func absurdSkippingGivesAnEmptyTraceWithoutTrapping(skipping: Int) {
        #expect(StackTrace.capture(depth: Int.max, skipping: skipping).isEmpty)
    }

    @Test func everyCapturedAddressIsNonNull() {
        let trace = captureAfterRecursing(10, depth: 64)
        #expect(trace.addresses.allSatisfy { $0 > 0x1000 })
    }

    @Test func rawAddressesRoundTripThroughTheInitializer() {
        let trace = StackTrace.capture()
        #expect(StackTrace(addresses: trace.addresses) == trace)
        #expect(trace.description.hasPrefix("StackTrace(\(trace.addresses.count) frames: 0x"))
    }
}
