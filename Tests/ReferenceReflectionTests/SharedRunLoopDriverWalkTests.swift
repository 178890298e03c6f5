import Foundation
import ReferenceReflection
import RetainGraph
import Testing
import TrackedTimers

/// A target that records nothing about its timer.
final class DriverWalkTarget: @unchecked Sendable {
    var ticks = 0
}

@Suite("Reflection and the run loop's shared timer")
struct SharedRunLoopDriverWalkTests {
    @Test("A walk from one scheduled timer does not reach the other timers of its run loop")
    func walkStaysWithItsTimer() throws {
        let graph = LiveGraph()
        let mine = DriverWalkTarget()
        let other = DriverWalkTarget()
        let timer = try RunLoopTimer.scheduled(
            interval: 3600, repeats: true, target: mine, graph: graph
        ) { target, _ in target.ticks += 1 }
        let neighbour = try RunLoopTimer.scheduled(
            interval: 3600, repeats: true, target: other, graph: graph
        ) { target, _ in target.ticks += 1 }
        defer {
            timer.invalidate()
            neighbour.invalidate()
        }
        let result = ReferenceWalker(graph: graph).walk(from: [timer])
        let addresses = Set(result.nodes.compactMap(\.address))
        let address = { (object: AnyObject) in UInt(bitPattern: ObjectIdentifier(object)) }
        #expect(addresses.contains(address(mine)))  // the walk did read the timer's target
        #expect(!addresses.contains(address(neighbour)))
        #expect(!addresses.contains(address(other)))
    }
}
