import ArgumentParser
import ProcessAttach

/// The questions `attach` and `core` ask of a heap: `--top`, `--who-holds`, `--cycles` and
/// `--all`.
struct HeapQuestions: ParsableArguments {
    @Option(name: .long, help: "Show the N most numerous types (default 20).")
    var top: Int?

    @Option(
        name: .long,
        help: "Show who holds the objects of a type (App.Session) or the object at an address.")
    var whoHolds: [String] = []

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

    /// The answers for `heap`, one section each: the type table (asked for, or when nothing
    /// else is, unless `typeTable` is false), each `--who-holds`, then `--cycles`.
    func answers(_ heap: HeapSnapshot, typeTable: Bool = true) -> [String] {
        var sections: [String] = []
        if typeTable, top != nil || (whoHolds.isEmpty && !cycles) {
            sections.append(heap.topText(limit: top ?? 20))
        }
        for name in whoHolds {
            sections.append(heap.whoHoldsText(name, groupLimit: groupLimit))
        }
        if cycles { sections.append(UnreachableCycles(in: heap).text(groupLimit: groupLimit)) }
        return sections
    }
}
