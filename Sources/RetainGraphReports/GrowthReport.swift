import Foundation

/// What a `HeapGrowth` measurement found: the types whose live count grew with the work's
/// repetitions, and the types other work in the process changed meanwhile.
///
/// ```swift
/// let growth = try await HeapGrowth.measure(repeating: 50) { try await handleRequest() }
/// #expect(growth.isEmpty, "\(growth)")
/// ```
///
/// A report describes itself as its ``text`` (`"\(growth)"`), and in one line as its
/// ``summary``. Its JSON form (``jsonData()``) is documented in the HeapGrowth catalog ("The
/// JSON growth report"); `retain-graph render` reads it.
public struct GrowthReport: Sendable, Hashable, Codable {
    /// The layout version of the JSON form.
    ///
    /// Version 2 added ``interference`` and each grown type's ``GrownType/attribution`` and
    /// ``GrownType/madeElsewhere``; version 1 reports still read.
    public static let currentSchemaVersion = 2

    /// The JSON layout version.
    public var schemaVersion = GrowthReport.currentSchemaVersion
    /// Always `"heapGrowth"`: tells this JSON from a leak report's.
    public var kind = "heapGrowth"
    /// Repetitions per round (two rounds were measured).
    public var repetitions: Int
    /// The growth per round a type needed to be reported: half the repetitions.
    public var threshold: Int
    /// The types that grew in both rounds because of the work, most first.
    public var grown: [GrownType]
    /// Types whose count other work in the process changed while the work was measured: not
    /// counted as the work's growth, and said so (empty in a quiet process).
    public var interference: [GrowthInterference]
    /// Live census objects at the end.
    public var liveObjects: Int

    /// Whether nothing grew with the work (interference alone leaves a report empty).
    public var isEmpty: Bool { grown.isEmpty }

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - repetitions: Repetitions per round.
    ///   - threshold: The growth per round a type needed.
    ///   - grown: The types that grew with the work.
    ///   - interference: The types other work changed meanwhile.
    ///   - liveObjects: Live census objects at the end.
    public init(
        repetitions: Int, threshold: Int, grown: [GrownType],
        interference: [GrowthInterference] = [], liveObjects: Int
    ) {
        self.repetitions = repetitions
        self.threshold = threshold
        self.grown = grown
        self.interference = interference
        self.liveObjects = liveObjects
    }

    /// The report as JSON (sorted keys, pretty-printed).
    ///
    /// - Throws: What `JSONEncoder` throws.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// Reads a report written by ``jsonData()`` (any version up to ``currentSchemaVersion``).
    ///
    /// - Throws: `DecodingError`, ``GrowthReportError/notAGrowthReport`` for other JSON, or
    ///   ``GrowthReportError/unsupportedSchemaVersion(_:)`` for a newer layout.
    public init(jsonData: Data) throws {
        self = try JSONDecoder().decode(GrowthReport.self, from: jsonData)
        guard kind == "heapGrowth" else { throw GrowthReportError.notAGrowthReport }
        guard schemaVersion <= Self.currentSchemaVersion else {
            throw GrowthReportError.unsupportedSchemaVersion(schemaVersion)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, kind, repetitions, threshold, grown, interference, liveObjects
    }

    /// Reads the keys of any version (``interference`` is absent before version 2).
    ///
    /// - Throws: `DecodingError` for malformed input.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try container.decode(Int.self, forKey: .schemaVersion)
        kind = try container.decode(String.self, forKey: .kind)
        repetitions = try container.decode(Int.self, forKey: .repetitions)
        threshold = try container.decode(Int.self, forKey: .threshold)
        grown = try container.decode([GrownType].self, forKey: .grown)
        interference =
            try container.decodeIfPresent([GrowthInterference].self, forKey: .interference) ?? []
        liveObjects = try container.decode(Int.self, forKey: .liveObjects)
    }
}

/// Why a growth report could not be read.
public enum GrowthReportError: Error, Equatable {
    /// The JSON is not a growth report (no `"kind": "heapGrowth"`).
    case notAGrowthReport
    /// Written by a newer version of the library.
    case unsupportedSchemaVersion(Int)
}

/// How a type's growth was tied to the measured work.
public enum GrowthAttribution: String, Sendable, Hashable, Codable {
    /// The instances were made by the measured work itself (on its thread, or its child
    /// tasks'): ``GrownType/growth`` counts exactly those, whatever else ran meanwhile.
    case body
    /// The instances were made on other threads (an event loop, a queue, an unstructured
    /// `Task` the work started), and the type did not grow while the work was not running.
    case otherThreads
    /// Where the instances were made cannot be traced (collection storage, closure contexts
    /// and boxes have no fixed size to trace by): counted from the live count, and the type
    /// did not grow while the work was not running.
    case untraced
}

/// One type whose live count grew with the repetitions.
public struct GrownType: Sendable, Hashable, Codable {
    /// The type name, as the census names it.
    public var typeName: String
    /// The growth in each measured round: the instances the work made that were still alive
    /// at the round's end (``GrowthAttribution/body``), or the live count's growth
    /// (``GrowthAttribution/otherThreads``).
    public var growth: [Int]
    /// New instances per repetition, over both rounds.
    public var perRepetition: Double
    /// The bytes of the instances new in the second round (their own blocks, not what they
    /// refer to).
    public var newInstanceBytes: Int
    /// What holds a sample new instance from outside the Swift heap, if a path was found.
    public var holder: String?
    /// The sample's path: the holder's first object to the sample, each step with the
    /// reference that reaches it.
    public var path: [GrowthPathStep]
    /// Where the sample was created (its type was traced in the measured rounds), demangled.
    public var creationTrace: [String]
    /// How the growth was tied to the work; absent in version 1 reports.
    public var attribution: GrowthAttribution?
    /// For growth made by the work itself, the instances of this type other threads made in
    /// each round and still alive at its end (other tests running in parallel, or work the
    /// measured code started elsewhere): not counted in ``growth``. Absent in version 1.
    public var madeElsewhere: [Int]?
    /// For growth counted from the live count, how much the type grew during an idle round as
    /// long as a measured one (other work's share, included in ``growth`` when above 0).
    public var idleGrowth: Int?
    /// How many bytes one new instance keeps alive, on average: the retained sizes (itself and
    /// what only it keeps alive, from the dominator tree of the last snapshot) of the sampled
    /// new instances, divided by their number. Absent when no new instance was reachable from
    /// a holder, and in reports written before it existed.
    public var retainedBytesPerInstance: Int?

    /// Creates a grown type.
    public init(
        typeName: String, growth: [Int], perRepetition: Double, newInstanceBytes: Int,
        holder: String?, path: [GrowthPathStep], creationTrace: [String],
        attribution: GrowthAttribution? = nil, madeElsewhere: [Int]? = nil,
        idleGrowth: Int? = nil, retainedBytesPerInstance: Int? = nil
    ) {
        self.typeName = typeName
        self.growth = growth
        self.perRepetition = perRepetition
        self.newInstanceBytes = newInstanceBytes
        self.holder = holder
        self.path = path
        self.creationTrace = creationTrace
        self.attribution = attribution
        self.madeElsewhere = madeElsewhere
        self.idleGrowth = idleGrowth
        self.retainedBytesPerInstance = retainedBytesPerInstance
    }
}

/// A type whose live count other work changed while the work was measured, so that its growth
/// cannot be the work's: the report states it instead of guessing.
public struct GrowthInterference: Sendable, Hashable, Codable {
    /// Why the type's growth is not the work's.
    public enum Reason: String, Sendable, Hashable, Codable {
        /// It grew in one round and not (or not as much) in the other: other work allocated or
        /// freed instances meanwhile.
        case unsteady
        /// It grew as steadily while the work was not running: other work grows it.
        case growsWithoutTheWork
    }

    /// The type name, as the census names it.
    public var typeName: String
    /// The live count's growth in each measured round.
    public var growth: [Int]
    /// The instances the measured work made in each round that were still alive at its end
    /// (0 when ``isTraced`` is false: the census could not tell).
    public var madeByTheWork: [Int]
    /// Whether the census traced where this type's instances were made (collection storage,
    /// closure contexts and boxes cannot be traced).
    public var isTraced: Bool
    /// The growth while the work was not running (an idle round as long as a measured one),
    /// when one was measured.
    public var idleGrowth: Int?
    /// Why the growth is not the work's.
    public var reason: Reason

    /// Creates an interference note.
    public init(
        typeName: String, growth: [Int], madeByTheWork: [Int], isTraced: Bool = true,
        idleGrowth: Int? = nil, reason: Reason
    ) {
        self.typeName = typeName
        self.growth = growth
        self.madeByTheWork = madeByTheWork
        self.isTraced = isTraced
        self.idleGrowth = idleGrowth
        self.reason = reason
    }
}

/// One object on a grown type's sample path.
public struct GrowthPathStep: Sendable, Hashable, Codable {
    /// The object's type.
    public var typeName: String
    /// The reference from the previous step that holds it (nil for the first object).
    public var label: String?
    /// Its address, for display.
    public var address: UInt

    /// Creates a step.
    public init(typeName: String, label: String?, address: UInt) {
        self.typeName = typeName
        self.label = label
        self.address = address
    }
}
