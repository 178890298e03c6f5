import ArgumentParser
import ProcessAttach

/// `--cycles` and `--all`, shared by `attach` and `core`.
struct CycleOptions: ParsableArguments {
    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Show every strong reference cycle nothing reaches (no holder, no weak reference, "
                + "no unexplained count), grouped by shape, the most cycles first: each titled by "
                + "its types, with one sample cycle."))
    var cycles = false

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "With --who-holds, show every way the objects are held; with --cycles, every "
                + "shape (not 5)."))
    var all = false

    /// The most groups a `--who-holds` or `--cycles` answer shows: 5, or every one with --all.
    var groupLimit: Int? { all ? nil : 5 }

    /// The `--cycles` answer for `heap`, or nil without `--cycles`.
    func cyclesText(_ heap: HeapSnapshot) -> String? {
        cycles ? UnreachableCycles(in: heap).text(groupLimit: groupLimit) : nil
    }
}
