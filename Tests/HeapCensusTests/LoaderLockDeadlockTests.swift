import Foundation
import Testing

/// Issue 35: an allocation of a traced (or sampled) type inside a `dl_iterate_phdr` callback
/// holds the loader's lock; if capturing its stack took libunwind's lock while another thread
/// held that one and waited for the loader's, the whole process hung (seen once in CI).
///
/// The run happens in a child process (`census-stacks-fixture loader-lock`): two threads
/// allocate traced objects and arrays (sampling every few bytes) inside `dl_iterate_phdr`
/// callbacks, 1,000 rounds each, while other threads take census snapshots, read creation
/// traces and unwind with libunwind, its cache flushed before every unwind so that it takes
/// its lock and then the loader's as often as it can. A child still running at the deadline
/// is attached with gdb, every thread's backtrace goes into the failure, and it is killed: a
/// hang fails the test, never the test run. Not named for `make test-tsan`'s filter: under
/// ThreadSanitizer the census does not sample (the sanitizer owns malloc).
@Suite struct LoaderLockDeadlockTests {
    @Test func tracedAndSampledAllocationsInsideDlIteratePhdrFinishAThousandRounds() throws {
        let outcome = try FixtureProgram.run(["loader-lock", "1000"], deadline: 180)
        switch outcome {
        case .hung(let output, let backtraces):
            let message =
                "the child hung (killed after 180 s). Its output:\n\(output)\n"
                + "Every thread's backtrace:\n\(backtraces)"
            Issue.record(Comment(rawValue: message))
        case .exited(let status, let output):
            #expect(status == 0, "\(output)")
            #expect(output.contains("completed 1000 rounds; sampling true"), "\(output)")
            #expect(output.contains("libunwind cache flushed: true"), "\(output)")
        }
    }
}
