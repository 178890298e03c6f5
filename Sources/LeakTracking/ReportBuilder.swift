import RetainGraph
import StackTraces

/// What a report says about the watched object, gathered by the watcher.
struct ReportSubject {
    var typeName: String
    var label: String?
    var address: UInt?
    var reason: String
    var graceSeconds: Double
    var secondsPastDeadline: Double
    /// When the report is made, in seconds since 1970, by the watcher's clock.
    var reportedAt: Double?
    /// Where the watch was made.
    var location: WatchLocation?
}

/// Turns graph nodes and references into a report's objects and references, giving each node a
/// report-local identity in order of first mention.
struct ReportBuilder {
    let snapshot: GraphSnapshot
    private(set) var objects: [ReportObject] = []
    private var localIDs: [ObjectID: String] = [:]

    init(snapshot: GraphSnapshot) {
        self.snapshot = snapshot
    }

    /// The modules whose frames creation traces leave out: the library's own.
    static let libraryModules = [
        "LeakTracking", "RetainGraph", "TrackedTimers", "StackTraces", "Locking",
        "ReferenceReflection", "RetainGraphTesting", "HeapCensus", "HeapGrowth", "ObjectGraph",
        "RuntimeLayouts", "RetainGraphReports",
    ]

    /// The report identity of a node, adding the node to ``objects`` at first mention.
    mutating func localID(of id: ObjectID, label: String? = nil) -> String {
        if let known = localIDs[id] { return known }
        let local = "o\(objects.count)"
        localIDs[id] = local
        let node = snapshot.node(id)
        var root: String?
        var rootShortName: String?
        if case .root(let kind)? = node?.kind {
            root = kind.description + (node?.note.map { " (\($0))" } ?? "")
            rootShortName = kind.shortName
        }
        objects.append(
            ReportObject(
                id: local, typeName: node?.typeName ?? "?", label: node?.label ?? label,
                kind: node?.kind.name ?? "object", root: root, rootShortName: rootShortName,
                address: node?.address.map(Self.hex), timer: node?.timer.map(ReportTimer.init)))
        return local
    }

    /// Adds an object that is no longer in the graph (a zombie's dead owner).
    mutating func addDeadObject(_ subject: ReportSubject) -> ReportObject {
        let object = ReportObject(
            id: "o\(objects.count)", typeName: subject.typeName, label: subject.label,
            kind: "object", address: subject.address.map(Self.hex), isDeallocated: true)
        objects.append(object)
        return object
    }

    /// A graph reference as a report reference; `isSuspect` comes from
    /// ``suspect(in:isCycle:subject:)``, which picks one per path and one per cycle.
    mutating func reference(_ reference: Reference, isSuspect: Bool = false) -> ReportReference {
        let from = localID(of: reference.from)
        let to = localID(of: reference.to)
        return ReportReference(
            from: from, to: to, ownership: reference.ownership, role: reference.role.name,
            detail: reference.role.detail, path: reference.role.path,
            description: reference.role.description,
            isSuspect: isSuspect, isDiscovered: reference.isDiscovered,
            foundIn: reference.isFoundInHeap ? "heap" : nil)
    }

    /// `references` as report references, the one at `suspect` marked.
    mutating func references(_ references: [Reference], suspect: Int?) -> [ReportReference] {
        references.indices.map { reference(references[$0], isSuspect: $0 == suspect) }
    }

    /// References among the mentioned nodes (and weak references into `subject`) that the path
    /// and cycle do not already show.
    ///
    /// Read from the mentioned nodes' holders, never from what they hold: a run loop on the
    /// path may hold thousands of timers, while a mentioned node has few holders.
    ///
    /// - Complexity: O(the in-degree of the mentioned nodes), whatever the graph's size.
    mutating func context(
        around subject: ObjectID?, excluding shown: [Reference], limit: Int = 40
    ) -> [ReportReference] {
        struct Key: Hashable {
            let from: ObjectID, to: ObjectID, role: ReferenceRole
        }
        let shownKeys = Set(shown.map { Key(from: $0.from, to: $0.to, role: $0.role) })
        let mentioned = Set(localIDs.keys)
        var candidates: [Reference] = []
        for id in mentioned {
            candidates += snapshot.references(to: id).filter {
                mentioned.contains($0.from) || id == subject
            }
        }
        // In the order of the holders, then of the held (as before, by identity).
        candidates.sort { ($0.from, $0.to) < ($1.from, $1.to) }
        var result: [ReportReference] = []
        for reference in candidates where result.count < limit {
            guard
                !shownKeys.contains(
                    Key(from: reference.from, to: reference.to, role: reference.role))
            else { continue }
            result.append(self.reference(reference))
        }
        return result
    }

    /// Where the objects among `ids` were made, the library's frames left out: every timer and
    /// proxy, and the objects in `also` (the leaked object and what holds it), when the graph
    /// knows where they were made (a creation trace, or the census's creation site).
    ///
    /// Frames that are not the user's are left out: thunks, the system's and the toolchain's,
    /// this library's, and the allocating initializer (`__allocating_init`), so a site's first
    /// frame is the line of the user's code that made the object.
    ///
    /// - Complexity: O(*f*) symbolications for the *f* frames of the traces kept (cached per
    ///   address).
    func creationTraces(
        of ids: [ObjectID], also: Set<ObjectID> = [], maximumFrames: Int = 8
    ) -> [CreationTrace] {
        var seen = Set<ObjectID>()
        var traces: [CreationTrace] = []
        for id in ids where seen.insert(id).inserted {
            guard let node = snapshot.node(id),
                node.kind == .timer || node.kind == .proxy || also.contains(id),
                let trace = node.creationTrace, !trace.isEmpty, let local = localIDs[id]
            else { continue }
            let frames = trace.symbolicated().filter(Self.isUserFrame).prefix(maximumFrames)
            guard !frames.isEmpty else { continue }
            let site = frames.first { $0.file != nil && ($0.line ?? 0) > 0 }
            traces.append(
                CreationTrace(
                    object: local, frames: frames.map(\.description), file: site?.file,
                    line: site?.line))
        }
        return traces
    }

    /// Whether a frame is the user's: not a thunk, not the system's or the toolchain's, not
    /// this library's, not an allocating initializer, and not a bare address.
    static func isUserFrame(_ frame: StackFrame) -> Bool {
        // Filter by Swift module name only: an image-name prefix such as "RetainGraph" would
        // also drop an app's frames from "RetainGraphDemo" or the test bundle.
        guard !frame.isThunk, !frame.isSystem,
            !(frame.module.map(libraryModules.contains) ?? false),
            frame.function != nil || frame.file != nil
        else { return false }
        return !(frame.function?.contains(".__allocating_init(") ?? false)
    }

    static func hex(_ address: UInt) -> String {
        let digits = String(address, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    }
}
