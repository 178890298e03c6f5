#if canImport(Glibc)
import Glibc
#endif

/// The process's processor time, as the at-exit check measures it.
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
}
