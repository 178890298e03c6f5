#if canImport(Glibc)
import Glibc
#endif

/// The process's processor time and free memory, as the at-exit check measures and spends them.
///
/// Processor time is what a loaded machine does not inflate the way it inflates wall time: the
/// check reports its own beside its wall time.
enum ProcessResources {
    /// The process's processor time so far, all threads, in seconds (`clock_gettime` with
    /// `CLOCK_PROCESS_CPUTIME_ID`): while the check runs, the process's other threads sleep.
    static func processorTime() -> Double {
        var time = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return 0 }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The processor time of the children this process has waited for (the symbolizer's runs),
    /// user and system, in seconds (`getrusage` with `RUSAGE_CHILDREN`).
    static func childrenProcessorTime() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_CHILDREN.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ value: timeval) -> Double {
            Double(value.tv_sec) + Double(value.tv_usec) / 1e6
        }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// glibc's `malloc_trim`, found at run time (absent from other C libraries).
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
        .map { unsafeBitCast($0, to: Trim.self) }

    /// Gives the memory the C library keeps free back to the system (`malloc_trim(0)`: the top
    /// of each arena, and the free pages inside it).
    ///
    /// The at-exit check calls it before each heap reading: what the tests freed, and then
    /// the first reading, is given back before the next allocates, so the process's peak RSS is
    /// the larger of the run's and one reading's, not their sum (hummingbird's test process:
    /// 157 MB at the peak without, 145 MB with one call between the readings).
    ///
    /// - Complexity: A walk of the allocator's arenas and free lists.
    static func releaseFreeMemory() {
        _ = trim?(0)
    }
}
