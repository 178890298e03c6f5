// Objects freed right before "ready", next to objects a global keeps: the freed ones sit in
// glibc's tcache and fastbins with their headers intact but their first words overwritten. An
// attach must count the kept ones and none of the freed ones.
import FixtureSupport

final class KeptObject {
    let value: Int
    init(_ value: Int) { self.value = value }
}

final class FreedObject {
    let value: Int
    init(_ value: Int) { self.value = value }
}

var kept: [KeptObject] = []
let count = firstArgument(or: 1000)
var freed: [FreedObject] = []
freed.reserveCapacity(count)
for index in 0..<count {
    kept.append(KeptObject(index))
    freed.append(FreedObject(index))
}
freed.removeAll(keepingCapacity: true)  // every FreedObject is freed here
announceReady("\(kept.count)")
runForever()
