// stack-trace-demo: capture a stack trace cheaply, symbolicate it later.
//
// Run with `make demo` (or `swift run stack-trace-demo`). It records where an object was
// created, the way the leak reports do, and prints that trace only when asked.
import Dispatch
import StackTraces

/// Something whose creation site we want to remember.
final class Owner {
    let name: String
    /// Where this owner was created: addresses only, about half a microsecond to take.
    let creation: StackTrace

    init(name: String) {
        self.name = name
        self.creation = StackTrace.capture(skipping: 1)  // start at whoever called init
    }
}

/// A small call chain, so the trace has something to show.
struct Screen {
    @inline(never)
    func open() -> Owner { makeOwner() }

    @inline(never)
    func makeOwner() -> Owner { Owner(name: "RefreshController") }
}

let owner = Screen().open()
print("Captured \(owner.creation.addresses.count) return addresses for \(owner.name).")
print("Symbolicated only now, when printed (system frames and thunks left out):")
print(owner.creation.formatted())

// The same on a dispatch queue: capture there, symbolicate here.
let group = DispatchGroup()
nonisolated(unsafe) var queued = StackTrace.empty
group.enter()
DispatchQueue(label: "demo.worker").async {
    queued = StackTrace.capture(depth: 8)
    group.leave()
}
group.wait()
print("\nCaptured on a dispatch queue:")
print(queued.formatted(includingSystemFrames: true))
