import HeapGraph
import RuntimeLayouts
import Testing

/// The word of a task's block that names the closure it runs: the closure context of the
/// `FutureAsyncContextPrefix`, whose `indirectResult` two words before points into the task.
@Suite struct TaskClosureWordTests {
    /// A task's block of 64 words, as this process's memory holds it.
    final class Block {
        let words = UnsafeMutablePointer<UInt>.allocate(capacity: 64)
        var address: UInt { UInt(bitPattern: words) }
        var size: Int { 64 * 8 }
        init() { words.initialize(repeating: 0, count: 64) }
        deinit { words.deallocate() }
    }

    let closure: UInt = 0x7f00_dead_0000

    /// Whether `task`'s words name ``closure`` as the closure it runs.
    func runsTheClosure(_ task: Block) -> Bool {
        HeapSnapshot.isClosureInPrefix(
            of: task.address, size: task.size, closure: closure, memory: LocalMemory())
    }

    @Test func theWordAfterTheResultPointerIsTheClosureTheTaskRuns() {
        let task = Block()
        task.words[30] = task.address + 48 * 8  // indirectResult: into the task
        task.words[32] = closure
        #expect(runsTheClosure(task))
    }

    @Test func aStaleCopyOfTheClosureBeforeThePrefixDoesNotHideIt() {
        let task = Block()
        task.words[6] = closure  // bytes the runtime left alone: two words before, no result
        task.words[30] = task.address + 48 * 8
        task.words[32] = closure
        #expect(runsTheClosure(task))
    }

    @Test func staleCopiesAloneAreNotTheClosureTheTaskRuns() {
        let task = Block()
        task.words[6] = closure
        task.words[20] = 0x1234  // two words before: not an address in the task
        task.words[22] = closure
        #expect(!runsTheClosure(task))
    }
}
