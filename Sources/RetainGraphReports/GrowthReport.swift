import Foundation

/// What a ``HeapGrowth`` measurement found: the types whose live count grew with the work's
/// repetitions.
///
/// ```swift
/// let growth = try await HeapGrowth.measure(repeating: 50) { try await handleRequest() }
/// if !growth.isEmpty { print(growth.text) }
/// ```
///
/// Its JSON form (``jsonData()``) is documented in the HeapGrowth catalog ("The JSON growth
/// report"); `retain-graph render` reads it.
public struct GrowthReport: Sendable, Hashable, Codable {
    /// The layout version of the JSON form.
    public static let currentSchemaVersion = 1

    /// The JSON layout version.
    public var schemaVersion = GrowthReport.currentSchemaVersion
    /// Always `"heapGrowth"`: tells this JSON from a leak report's.
    public var kind = "heapGrowth"
    /// Repetitions per round (two rounds were measured).
    public var repetitions: Int
    /// The growth per round a type needed to be reported: half the repetitions.
    public var threshold: Int
    /// The types that grew in both rounds, most first.
    public var grown: [GrownType]
    /// Live census objects at the end.
    public var liveObjects: Int

    /// Whether nothing grew.
    public var isEmpty: Bool { grown.isEmpty }

    /// Creates a report.
    public init(repetitions: Int, threshold: Int, grown: [GrownType], liveObjects: Int) {
        self.repetitions = repetitions
        self.threshold = threshold
        self.grown = grown
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

    /// Reads a report written by ``jsonData()``.
    ///
    /// - Throws: `DecodingError`, or ``GrowthReportError/notAGrowthReport`` for other JSON.
    public init(jsonData: Data) throws {
        self = try JSONDecoder().decode(GrowthReport.self, from: jsonData)
        guard kind == "heapGrowth" else { throw GrowthReportError.notAGrowthReport }
        guard schemaVersion <= Self.currentSchemaVersion else {
            throw GrowthReportError.unsupportedSchemaVersion(schemaVersion)
        }
    }
}

/// Why a growth report could not be read.
public enum GrowthReportError: Error, Equatable {
    /// The JSON is not a growth report (no `"kind": "heapGrowth"`).
    case notAGrowthReport
    /// Written by a newer version of the library.
    case unsupportedSchemaVersion(Int)
}

/// One type whose live count grew with the repetitions.
public struct GrownType: Sendable, Hashable, Codable {
    /// The type name, as the census names it.
    public var typeName: String
    /// The growth of its live count in each measured round.
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
    /// Where the sample was created (its type was traced in the second round), demangled.
    public var creationTrace: [String]

    /// Creates a grown type.
    public init(
        typeName: String, growth: [Int], perRepetition: Double, newInstanceBytes: Int,
        holder: String?, path: [GrowthPathStep], creationTrace: [String]
    ) {
        self.typeName = typeName
        self.growth = growth
        self.perRepetition = perRepetition
        self.newInstanceBytes = newInstanceBytes
        self.holder = holder
        self.path = path
        self.creationTrace = creationTrace
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
