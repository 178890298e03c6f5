// A main arena that cannot grow with `brk`: a page is mapped right after the program break
// before the objects are made, so glibc goes on in mappings of its own (a "non-contiguous" main
// arena: its top chunk leaves `[heap]`). `attach-brk-blocked N` makes N `Item`s on the main
// thread, held by a global, then answers `ready PID N`.
import FixtureSupport
import Foundation

/// About 300 bytes with its name: 2,000 of them outgrow the `[heap]` the runtime started with.
final class Item {
    let name: String

    init(_ number: Int) { name = "item \(number) " + String(repeating: "x", count: 200) }
}

// The break, rounded up to a page: the next `brk` would need that page.
let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
let end = (UInt(bitPattern: sbrk(0)) + page - 1) & ~(page - 1)
let blocker = mmap(
    UnsafeMutableRawPointer(bitPattern: end), Int(page), PROT_READ,
    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0)
guard blocker == UnsafeMutableRawPointer(bitPattern: end) else {
    say("could not map the page after the break")
    exit(1)
}

nonisolated(unsafe) var items: [Item] = []
let count = firstArgument(or: 2000)
items.reserveCapacity(count)
for number in 0..<count { items.append(Item(number)) }
announceReady("\(items.count)")
runForever()
