// swift-tools-version:6.1
//
// Programs for the attach tests (issue 26): small Swift executables that link NO RetainGraph
// product, each leaving objects behind the way real programs do. ProcessAttachTests builds this
// package (Foundation only, a few seconds) into its own scratch folder, starts a program, waits
// for its "ready" line and attaches to it from outside.
//
//   attach-task-loop       a `Task` sleep loop that captures its owner strongly
//   attach-global-cache    a global array that keeps every session ever cached
//   attach-timer           a `Foundation.Timer` whose block captures its owner
//   attach-delegate-cycle  an owner and its delegate holding each other strongly, unreferenced
//   attach-stale           objects freed just before "ready", next to objects kept
//   attach-weak-targets    weakly referenced objects whose side tables reuse dirty memory
//   attach-noncopyable     a class with an Atomic and a Mutex among its stored properties
//   attach-exiting         exits on its own soon after "ready"
//   attach-many            N small objects in a linked list held by a global (benchmarks)
//   attach-arena-heaps     N objects of 4 KiB made on a second thread: an arena of two heaps
//   attach-symbolicated    a cache of strings and byte arrays; symbolicates its own backtrace
//   attach-brk-blocked     N objects in a main arena that brk cannot grow (mmap'd instead)
//   attach-stop-target     busy, blocked and thread-creating threads and a progress counter;
//                          forks and execs on command (the stop tests, issue 32)
//   attach-mixed-holders   healthy and leaked watchers, leases and three-type order cycles
//                          mixed: who holds which, every unreachable cycle (issue 31)
//   attach-literal-names   N sleeping tasks, an AsyncStream, heap string keys, a thread named
//                          before start(): names and counts taken literally (issue 31)
//   attach-hostile         plants fake metadata, cyclic superclasses, escape sequences in a
//                          type name, implausible counts and looping free lists (issue 32)
//   attach-dump-target     sessions in a global, an object on a parked thread's stack, memory
//                          that grows on command (the core and dump tests, issue 33)
//   attach-tasks           tasks suspended in known places (a sleep loop, a continuation, an
//                          AsyncStream, a task group, an actor), plus N identical ones (issue 34)
import PackageDescription

let package = Package(
    name: "AttachTargets",
    targets: [
        .target(name: "FixtureSupport"),
        .executableTarget(name: "attach-task-loop", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-global-cache", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-timer", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-delegate-cycle", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-stale", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-weak-targets", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-noncopyable", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-exiting", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-many", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-arena-heaps", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-symbolicated", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-brk-blocked", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-stop-target", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-mixed-holders", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-literal-names", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-hostile", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-dump-target", dependencies: ["FixtureSupport"]),
        .executableTarget(name: "attach-tasks", dependencies: ["FixtureSupport"]),
    ]
)
