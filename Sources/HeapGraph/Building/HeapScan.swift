import ObjectGraph
import RuntimeLayouts

/// What a heap reader hands the graph builder: the objects it read, the words their layouts
/// say may be references, the dynamic values it copied, and the layouts and roles it read with.
///
/// The census fills one from its table in this process, an attach from a walk of glibc's heap
/// in a stopped process's copy; the builder (``HeapSnapshot/init(scan:roots:process:limitations:statistics:creationTraces:)``)
/// makes the same graph of both.
package struct HeapScan {
    /// The objects, the references and the dynamic values' copies, in the order read.
    package var columns: ScanColumns
    /// The layouts read with, flattened: each dynamic value's slot, by the number the columns
    /// record.
    package var flat: FlatLayouts
    /// The layouts, by the index the columns record (-1 for an object read without one: a C
    /// block, an object whose layout could not be compiled).
    package var layouts: [CompiledLayout]
    /// The roles the layouts' slots name, by number.
    package var roles: InternedRoles
    /// Decodes the dynamic values' copies (a slot, its bytes, where they were) into reference
    /// words and the slots they were read from: the layout compiler over the reader's metadata
    /// source.
    package var decoder: any DynamicValueDecoding

    /// A scan's result.
    package init(
        columns: ScanColumns, flat: FlatLayouts, layouts: [CompiledLayout], roles: InternedRoles,
        decoder: any DynamicValueDecoding
    ) {
        self.columns = columns
        self.flat = flat
        self.layouts = layouts
        self.roles = roles
        self.decoder = decoder
    }
}

/// What a heap reader knows of the holders outside the heap: where the process keeps its
/// global variables and what they are called, its threads' stacks and registers (read from
/// outside), and memory to read the objects that name their holders (a `Foundation.Timer`'s
/// state, a `Foundation.Thread`'s thread).
package protocol HeapRoots {
    /// Calls `body` with every word of the process's writable image data (its global and static
    /// variables) whose value lies in `bounds` and is the address of an object of `index`:
    /// where the word is, and the object's number.
    func forEachGlobal(
        holding index: AddressIndex, within bounds: ClosedRange<UInt>,
        _ body: (_ slot: UInt, _ object: Int32) -> Void)

    /// The variable whose storage holds `slot`: where it starts and its demangled name.
    func variable(containing slot: UInt) -> (start: UInt, name: String)

    /// Calls `body` with each thread whose stack or registers hold an object of `index`: its
    /// kernel id and the object's number (once per pair). Empty for a reader that cannot see
    /// stacks (the census).
    func forEachStackHolder(
        holding index: AddressIndex, _ body: (_ thread: Int32, _ object: Int32) -> Void)

    /// The live threads: kernel id to name.
    var threadNames: [Int32: String] { get }

    /// Whether the `Foundation.Thread` object at `object`, whose pthread is `pthread`, is
    /// running, and the name of its thread (``ownName(_:isMainThread:processID:)``).
    func thread(object: UInt, pthread: UInt) -> (isRunning: Bool, name: String?)

    /// Memory outside the objects: a timer's CoreFoundation timer, a thread's pthread.
    var memory: any MemoryReader { get }

    /// What this reader can say of references nothing explains.
    var unattributed: UnattributedReferences { get }
}

extension HeapRoots {
    /// `name`, a thread's, or nil when it is the name a thread other than the main one
    /// inherited from it (the process's name).
    ///
    /// A new thread starts with its creator's name. Foundation on Linux sets a `Thread`'s name
    /// only when `name` is assigned *after* `start()` (a name assigned before is dropped), so a
    /// thread showing the process's name is most likely one whose name was lost: a holder named
    /// after the process would send a reader looking for the wrong thread.
    package func ownName(_ name: String?, isMainThread: Bool, processID: Int32) -> String? {
        isMainThread || name != threadNames[processID] ? name : nil
    }
}
