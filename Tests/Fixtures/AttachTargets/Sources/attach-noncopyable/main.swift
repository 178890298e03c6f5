// A registry whose class has noncopyable stored properties (an `Atomic`, a `Mutex`), as modern
// server code does: the toolchain's remote mirror cannot lay such a class out, and its type
// records name those fields' types through accessor functions. An attach still names every
// field (from the class's descriptor) and reads the ones it cannot type conservatively.
import FixtureSupport
import Synchronization

final class Listener {
    let name: String
    init(name: String) { self.name = name }
}

final class Registry: @unchecked Sendable {
    let generation = Atomic<Int>(0)
    let listeners = Mutex<[Listener]>([])
    let primary: Listener

    init() {
        primary = Listener(name: "primary")
        listeners.withLock { $0.append(Listener(name: "secondary")) }
        generation.add(1, ordering: .relaxed)
    }
}

let registry = Registry()
announceReady()
runForever()
