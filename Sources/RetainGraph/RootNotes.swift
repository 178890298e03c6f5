import Locking

/// Remarks on root objects that outlived what they stand for, such as the run loop of a thread
/// that has exited: snapshots copy them into ``Node/note``.
///
/// A root's name is fixed when the graph first records it (`run loop of thread "io-worker"`),
/// but its thread can end later while the run loop object lives on (a timer still holds it).
/// Whoever learns of the end (TrackedTimers, from a thread-exit destructor) writes a note here,
/// and every snapshot taken afterwards shows it, in any graph, however the root was recorded.
///
/// Entries hold their object weakly and are found by address: a node's address is its object's
/// (pinned, so unique while the graph knows the object), and an entry whose object died no
/// longer matches anything. Root objects are few (run loops, queues), so the table stays small.
package enum RootNotes {
    private struct Entry {
        weak var object: AnyObject?
        var note: String
    }

    private static let entries = Locked<[UInt: Entry]>([:])

    /// Attaches `note` to `object`, replacing an earlier one; entries of dead objects go.
    ///
    /// - Parameters:
    ///   - note: A short remark, such as `its thread has exited`.
    ///   - object: The root object (a run loop, a queue).
    /// - Complexity: O(*n*) for the *n* notes kept (a handful).
    package static func set(_ note: String, for object: AnyObject) {
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        entries.withLock { entries in
            entries = entries.filter { $0.value.object != nil }
            entries[address] = Entry(object: object, note: note)
        }
    }

    /// The notes of objects still alive, by address, for one snapshot.
    ///
    /// - Complexity: O(*n*) for the *n* notes kept.
    static func current() -> [UInt: String] {
        entries.withLock { entries in
            guard !entries.isEmpty else { return [:] }
            return entries.compactMapValues { $0.object == nil ? nil : $0.note }
        }
    }
}
