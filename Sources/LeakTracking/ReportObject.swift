import RetainGraph
import RetainGraphUtilities

/// One object mentioned in a ``LeakReport``.
public struct ReportObject: Sendable, Hashable, Codable {
    /// The object's identity within its report (`o0`, `o1`, …, in order of first mention),
    /// stable across runs for the same leak.
    public var id: String
    /// The fully qualified type name, such as `MyApp.Owner`.
    public var typeName: String
    /// The label recorded in the graph or given to the watch, if any.
    public var label: String?
    /// `object`, `timer`, `proxy`, `closure` or `root` (``/RetainGraph/NodeKind/name``).
    public var kind: String
    /// For a root, what it is, such as `run loop of thread "main"`.
    public var root: String?
    /// For a root, its short name for chains and tables (``/ObjectGraph/RootKind/shortName``),
    /// such as `run loop`; absent in reports written before it existed.
    public var rootShortName: String?
    /// The object's address when the report was made, such as `0x00005581c2a0`, for display
    /// only: addresses differ from run to run, so tools compare fingerprints instead.
    public var address: String?
    /// Timer state, for timers.
    public var timer: ReportTimer?
    /// Whether the object had already died when the report was made (the owner of a zombie).
    public var isDeallocated: Bool

    /// Creates a report object.
    public init(
        id: String, typeName: String, label: String? = nil, kind: String, root: String? = nil,
        rootShortName: String? = nil, address: String? = nil, timer: ReportTimer? = nil,
        isDeallocated: Bool = false
    ) {
        self.id = id
        self.typeName = typeName
        self.label = label
        self.kind = kind
        self.root = root
        self.rootShortName = rootShortName
        self.address = address
        self.timer = timer
        self.isDeallocated = isDeallocated
    }

    /// The type name without its module, or for a root a short name such as `run loop`.
    public var shortName: String {
        if let root { return rootShortName ?? root }
        return TypeNames.withoutModule(typeName)
    }

    /// The type name, the label in quotes and the address, as a report line shows the object.
    public var displayName: String {
        var text = root.map { "\($0) [root]" } ?? typeName
        if let label, root == nil { text += " \"\(label)\"" }
        if let address { text += " at \(address)" }
        return text
    }
}

/// A timer's state as written in a ``LeakReport``.
public struct ReportTimer: Sendable, Hashable, Codable {
    /// Whether the timer repeats.
    public var repeats: Bool
    /// Seconds between fires.
    public var interval: Double
    /// Whether it is scheduled on a run loop or resumed on a queue.
    public var isScheduled: Bool
    /// When it fires next, in seconds since 1970.
    public var nextFireDate: Double?
    /// How many times it fired.
    public var fireCount: Int
    /// How many of those fires found the target dead.
    public var firesIntoDeadTarget: Int
    /// Whether it stops by itself once its target died.
    public var stopsWhenTargetDies: Bool

    /// Copies the graph's timer information.
    public init(_ info: TimerInfo) {
        repeats = info.repeats
        interval = info.interval
        isScheduled = info.isScheduled
        nextFireDate = info.nextFireDate
        fireCount = info.fireCount
        firesIntoDeadTarget = info.firesIntoDeadTarget
        stopsWhenTargetDies = info.stopsWhenTargetDies
    }

    /// `repeating every 1 s, scheduled, fired 3×` and similar.
    public var description: String {
        var parts = [repeats ? "repeating every \(seconds(interval))" : "one-shot"]
        parts.append(isScheduled ? "scheduled" : "not scheduled")
        parts.append("fired \(fireCount)×")
        if firesIntoDeadTarget > 0 { parts.append("\(firesIntoDeadTarget)× into a dead target") }
        return parts.joined(separator: ", ")
    }
}

/// One reference in a ``LeakReport``: `from` holds `to`.
public struct ReportReference: Sendable, Hashable, Codable {
    /// The holder's ``ReportObject/id``.
    public var from: String
    /// The held object's ``ReportObject/id``.
    public var to: String
    /// How it is held (written as `kind` in JSON).
    public var ownership: Ownership
    /// The role's machine name (``/ObjectGraph/ReferenceRole/name``), such as `target`.
    public var role: String
    /// The role's payload (property name, mode, key, captured type), if any.
    public var detail: String?
    /// The role's second payload (``/ObjectGraph/ReferenceRole/path``), if any.
    public var path: String?
    /// The role in words, such as `scheduled in mode "kCFRunLoopDefaultMode"` or `.timer`.
    public var description: String
    /// Whether this is a reference to suspect: one that usually should not be strong.
    public var isSuspect: Bool
    /// Whether it was found by inspecting memory rather than declared.
    public var isDiscovered: Bool
    /// Where a discovered reference was found: `"heap"` when the heap census found it (by
    /// reading the whole heap), absent otherwise (declared, or found by reflection).
    public var foundIn: String?

    enum CodingKeys: String, CodingKey {
        case from, to, role, detail, path, description, isSuspect, isDiscovered, foundIn
        case ownership = "kind"
    }

    /// Creates a report reference.
    public init(
        from: String, to: String, ownership: Ownership, role: String, detail: String? = nil,
        path: String? = nil, description: String, isSuspect: Bool = false,
        isDiscovered: Bool = false, foundIn: String? = nil
    ) {
        self.from = from
        self.to = to
        self.ownership = ownership
        self.role = role
        self.detail = detail
        self.path = path
        self.description = description
        self.isSuspect = isSuspect
        self.isDiscovered = isDiscovered
        self.foundIn = foundIn
    }

    /// How it is held (``ownership``).
    @available(*, deprecated, renamed: "ownership")
    public var kind: Ownership { ownership }

    /// The role as a value, read back from ``role``, ``detail`` and ``path``; `nil` for a role
    /// this version does not know.
    public var referenceRole: ReferenceRole? {
        ReferenceRole(name: role, detail: detail, path: path)
    }

    /// How reports mark where a discovered reference came from.
    var discoveryMark: String {
        guard isDiscovered else { return "" }
        return foundIn == "heap" ? " (found in the heap)" : " (discovered)"
    }

    /// `⇒` for a reference that retains its target, `→` otherwise (the notation of the seed
    /// scenarios).
    public var arrow: String { ownership.arrow }
}

/// Where one object in a report was created: a timer or proxy (its full creation trace), or the
/// leaked object and its holder (the census's creation site) when the graph knows it.
public struct CreationTrace: Sendable, Hashable, Codable {
    /// The ``ReportObject/id`` of the object.
    public var object: String
    /// Symbolicated, demangled frames, innermost first, the library's own frames, thunks,
    /// system frames and allocating initializers left out.
    public var frames: [String]
    /// The source file of the first frame that has one: the line of the user's code that made
    /// the object (absent in reports written before it existed, and when no frame has a file).
    public var file: String?
    /// That frame's 1-based line.
    public var line: Int?

    /// Creates a creation trace.
    ///
    /// - Parameters:
    ///   - object: The object's ``ReportObject/id``.
    ///   - frames: The frames, innermost first.
    ///   - file: The source file of the user's frame, if known.
    ///   - line: Its line, if known.
    public init(object: String, frames: [String], file: String? = nil, line: Int? = nil) {
        self.object = object
        self.frames = frames
        self.file = file
        self.line = line
    }

    /// `File.swift:42`: the file name and line of the user's frame, if known.
    public var site: String? { Self.site(file: file, line: line) }

    /// `File.swift:42`: the last component of `file` and `line`; nil without a file or a line.
    package static func site(file: String?, line: Int?) -> String? {
        guard let file, let line, line > 0 else { return nil }
        return "\(file.split(separator: "/").last.map(String.init) ?? file):\(line)"
    }
}

func seconds(_ value: Double) -> String {
    if value == value.rounded() { return "\(Int(value)) s" }
    return "\((value * 1000).rounded() / 1000) s"
}
