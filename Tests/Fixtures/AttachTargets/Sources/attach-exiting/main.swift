import FixtureSupport
// Announces it is ready, then exits on its own a moment later, whatever is attached to it.
import Foundation

final class ShortLived {
    let payload = [Int](repeating: 1, count: 16)
}

var objects = (0..<10_000).map { _ in ShortLived() }
announceReady()
let lifetime = firstArgument(or: 50)
Thread.sleep(forTimeInterval: Double(lifetime) / 1000)
objects.removeAll()
exit(0)
