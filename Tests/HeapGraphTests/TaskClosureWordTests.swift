import HeapGraph
import RuntimeLayouts
import Testing

/// The word of a task's block that names the closure it runs: the closure context of the
/// `FutureAsyncContextPrefix` (`indirectResult`, `asyncEntryPoint`, `closureContext`,
/// `errorResult`), followed by the initial async context, whose `Parent` is null.
@Suite struct TaskClosureWordTests {
    /// A task's block of 64 words, as this process's memory holds it.
    final class Block {
        let words = UnsafeMutablePointer<UInt>.allocate(capacity: 64)
        var address: UInt { UInt(bitPattern: words) }
        var size: Int { 64 * 8 }
        init(filledWith value: UInt = 0) { words.initialize(repeating: value, count: 64) }
        deinit { words.deallocate() }

        /// Writes what `swift_task_create` writes around the closure context at word
        /// `closureWord`: the result storage just before the prefix, the entry point, the
        /// closure, and the initial context's null `Parent` and its `ResumeParent`.
        func writePrefix(closure: UInt, at closureWord: Int) {
            words[closureWord - 2] = address + UInt(closureWord - 3) * 8  // indirectResult
            words[closureWord - 1] = 0x5555_0000_1230  // asyncEntryPoint: code
            words[closureWord] = closure
            words[closureWord + 2] = 0  // initialContext->Parent
            words[closureWord + 3] = 0x5555_0000_4560  // initialContext->ResumeParent: code
        }
    }

    let closure: UInt = 0x7f00_dead_0000

    /// Whether `task`'s words name ``closure`` as the closure it runs.
    func runsTheClosure(_ task: Block) -> Bool {
        HeapSnapshot.isClosureInPrefix(
            of: task.address, size: task.size, closure: closure, memory: LocalMemory())
    }

    @Test func theWordTheRuntimeWroteInThePrefixIsTheClosureTheTaskRuns() {
        let task = Block()
        task.writePrefix(closure: closure, at: 32)
        #expect(runsTheClosure(task))
    }

    @Test func aResultThatTakesNoBytesPointsAtThePrefixItself() {
        let task = Block()
        task.writePrefix(closure: closure, at: 32)
        task.words[30] = task.address + 30 * 8
        #expect(runsTheClosure(task))
    }

    @Test func aStaleCopyOfTheClosureBeforeThePrefixDoesNotHideIt() {
        let task = Block()
        task.words[6] = closure  // bytes the runtime left alone: two words before, no result
        task.writePrefix(closure: closure, at: 32)
        #expect(runsTheClosure(task))
    }

    @Test func staleCopiesAloneAreNotTheClosureTheTaskRuns() {
        let task = Block()
        task.words[6] = closure
        task.words[20] = 0x1234  // two words before: not an address in the task
        task.words[22] = closure
        #expect(!runsTheClosure(task))
    }

    /// A block a freed object filled with one address in every word, and the runtime's own
    /// pointers into the task written over some of them (its allocator's links): a stale copy
    /// two words after such a pointer is not the closure the task runs.
    @Test func aStaleCopyTwoWordsAfterAPointerIntoTheTaskIsNotTheClosure() {
        let task = Block(filledWith: closure)
        task.words[10] = task.address + 4 * 8  // a link into the task; [12] is stale
        task.words[11] = 0x5555_0000_7890
        task.writePrefix(closure: 0x7f00_beef_0000, at: 32)  // the closure the task runs
        #expect(!runsTheClosure(task))
    }

    @Test func aStaleBlockDoesNotHideTheClosureTheRuntimeWroteAfterIt() {
        let task = Block(filledWith: closure)
        task.words[10] = task.address + 4 * 8
        task.words[11] = 0x5555_0000_7890
        task.writePrefix(closure: closure, at: 32)
        #expect(runsTheClosure(task))
    }
}
