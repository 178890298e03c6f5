// Healthy and leaked instances of the same types, mixed (issue 31): 100 watchers of which 97
// sit in a global registry and 3 were removed from it but keep themselves alive through their
// own callback (a cycle nothing holds); and leases of a pool, of which the pool keeps one as
// `current` and each `lease N` line on standard input makes N more, all but one leaked the same
// way (each lease's `onDisconnect` captures it). Answers each line with `leased TOTAL`.
import FixtureSupport

final class Watcher {
    let id: Int
    var onChange: (() -> Void)?
    init(id: Int) { self.id = id }
}

final class PooledLease {
    let id: Int
    var onDisconnect: (() -> Void)?
    init(id: Int) { self.id = id }
}

final class Pool {
    var current: PooledLease?
    var made = 0

    /// Makes `count` leases: the last becomes `current`, the others forget to break their
    /// cycle.
    func lease(_ count: Int) {
        for index in 0..<count {
            let lease = PooledLease(id: made)
            made += 1
            if index == count - 1 {
                current = lease
            } else {
                lease.onDisconnect = { _ = lease.id }
            }
        }
    }
}

nonisolated(unsafe) var registry: [Watcher] = []
nonisolated(unsafe) let pool = Pool()

for id in 0..<100 {
    let watcher = Watcher(id: id)
    if id % 33 == 32 {
        watcher.onChange = { _ = watcher.id }  // removed from the registry, but keeps itself
    } else {
        registry.append(watcher)
    }
}
pool.lease(1)
announceReady("\(registry.count)")
while let line = readLine() {
    if line.hasPrefix("lease "), let count = Int(line.dropFirst(6)) {
        pool.lease(count)
        say("leased \(pool.made)")
    }
}
runForever()
