// The program the creation-stack tests run as a child process (HeapCensusTests:
// LoaderLockDeadlockTests, CreationStackTests, ManyCreationStacksTests):
//
//   census-stacks-fixture site                 prints the line that made a Widget, as chosen by
//                                              CreationSite.userFrame(excludingModules:)
//   census-stacks-fixture images               prints how many Runtime image sources outlive a
//                                              symbolication (0: the cache went with its thread)
//   census-stacks-fixture loader-lock ROUNDS   allocates traced and sampled objects inside
//                                              dl_iterate_phdr callbacks while other threads take
//                                              snapshots, read creation traces and unwind with
//                                              libunwind; exits 0 after ROUNDS rounds (or hangs:
//                                              the test's watchdog then prints every thread's
//                                              backtrace)
//   census-stacks-fixture many-stacks COUNT    allocates at COUNT distinct creation stacks
//                                              (recursion along distinct call paths, to
//                                              distinct depths), then prints the line that made
//                                              a Widget, as `site` does
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "" {
case "site":
    SiteRun.run()
case "images":
    ImagesRun.run()
case "many-stacks":
    ManyStacksRun.run(count: arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000)
case "loader-lock":
    LoaderLockRun.run(rounds: arguments.count > 2 ? Int(arguments[2]) ?? 1000 : 1000)
default:
    print("usage: census-stacks-fixture site | images | many-stacks COUNT | loader-lock ROUNDS")
    exit(2)
}
