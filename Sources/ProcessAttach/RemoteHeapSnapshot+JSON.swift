import Foundation

extension RemoteHeapSnapshot {
    /// The formats a snapshot can be written in.
    ///
    /// The hook for other formats: a writer that needs the objects, their sizes and the
    /// references reads ``RemoteHeapSnapshot/graph`` (nodes are objects, numbered as
    /// ``RemoteObjectID``s; edges are references) and ``RemoteHeapSnapshot/subscript(_:)`` for
    /// sizes, and becomes a case here (the Chrome `.heapsnapshot` export is being written
    /// separately).
    public enum ExportFormat: String, Sendable, CaseIterable {
        /// RetainGraph's own JSON (`"kind": "retainGraphAttach"`), read back by
        /// ``RemoteHeapSnapshot/init(jsonData:)`` and `retain-graph attach --input`.
        case json
    }

    /// The snapshot in `format`.
    public func exported(as format: ExportFormat) throws -> Data {
        switch format {
        case .json: return try jsonData()
        }
    }

    /// The snapshot as JSON: every object (address, type, size, retain count), reference,
    /// holder and thread, in columns.
    ///
    /// - Complexity: O(*n* + *r*); about 40 bytes per object and 30 per reference.
    public func jsonData() throws -> Data {
        let file = SnapshotFile(
            kind: SnapshotFile.kindName, schemaVersion: 1, processID: processID,
            command: command, capturedAt: capturedAt,
            stopSeconds: stopDuration.map(\.attachSeconds), threads: threads,
            limitations: limitations, statistics: statistics, types: types, labels: labels,
            addresses: addresses, objectTypes: typeOfObject, sizes: sizes,
            retainCounts: retainCounts, referenceSources: references.sources,
            referenceTargets: references.targets,
            referenceOwnerships: references.ownerships.map(\.rawValue),
            referenceLabels: references.labels,
            holders: holders.map { SnapshotFile.Held(object: $0.object, holder: $0.holder) })
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(file)
    }

    /// Reads a snapshot written by ``jsonData()``.
    ///
    /// - Throws: ``AttachError/unreadableSnapshot(reason:)`` when the data is not such a
    ///   snapshot, or is inconsistent (columns of different lengths, numbers out of range).
    public init(jsonData: Data) throws(AttachError) {
        let file: SnapshotFile
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            file = try decoder.decode(SnapshotFile.self, from: jsonData)
        } catch {
            throw .unreadableSnapshot(reason: "not a RetainGraph attach snapshot (\(error))")
        }
        guard file.kind == SnapshotFile.kindName, file.schemaVersion == 1 else {
            throw .unreadableSnapshot(reason: "kind \(file.kind), schema \(file.schemaVersion)")
        }
        let count = file.addresses.count
        let edges = file.referenceSources.count
        guard file.objectTypes.count == count, file.sizes.count == count,
            file.retainCounts.count == count, file.referenceTargets.count == edges,
            file.referenceOwnerships.count == edges, file.referenceLabels.count == edges,
            file.objectTypes.allSatisfy({ $0 >= 0 && Int($0) < file.types.count }),
            file.referenceSources.allSatisfy({ Int($0) < count }),
            file.referenceTargets.allSatisfy({ Int($0) < count }),
            file.holders.allSatisfy({ $0.object >= 0 && Int($0.object) < count })
        else { throw .unreadableSnapshot(reason: "its columns do not match") }
        let ownerships = file.referenceOwnerships.map { SlotOwnership(rawValue: $0) ?? .strong }
        self.init(
            processID: file.processID, command: file.command, capturedAt: file.capturedAt,
            stopDuration: file.stopSeconds.map { .milliseconds(Int64($0 * 1000)) },
            threads: file.threads, limitations: file.limitations, statistics: file.statistics,
            addresses: file.addresses, typeOfObject: file.objectTypes, types: file.types,
            sizes: file.sizes, retainCounts: file.retainCounts,
            references: ReferenceColumns(
                sources: file.referenceSources, targets: file.referenceTargets,
                ownerships: ownerships, labels: file.referenceLabels),
            labels: file.labels,
            holders: file.holders.map { HeldObject(object: $0.object, holder: $0.holder) }
                .sorted {
                    $0.object != $1.object ? $0.object < $1.object : $0.holder.rank < $1.holder.rank
                })
    }
}

/// The JSON file of a snapshot: columns, so a million objects take tens of megabytes.
struct SnapshotFile: Codable {
    static let kindName = "retainGraphAttach"

    struct Held: Codable {
        var object: Int32
        var holder: RemoteHolder
    }

    var kind: String
    var schemaVersion: Int
    var processID: Int32
    var command: String
    var capturedAt: Date
    var stopSeconds: Double?
    var threads: [RemoteThread]
    var limitations: [String]
    var statistics: RemoteHeapStatistics
    var types: [RemoteType]
    var labels: [String]
    var addresses: [UInt]
    var objectTypes: [Int32]
    var sizes: [UInt32]
    var retainCounts: [UInt32]
    var referenceSources: [UInt32]
    var referenceTargets: [UInt32]
    var referenceOwnerships: [UInt8]
    var referenceLabels: [Int32]
    var holders: [Held]
}
