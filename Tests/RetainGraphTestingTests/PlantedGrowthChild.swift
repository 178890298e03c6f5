import Foundation
import RetainGraphTesting
import Testing

/// Whether this process is the child run that ``HeapSnapshotAttachmentTests`` starts for a
/// failing growth check: only then does the planted growth below run (and fail, on purpose).
let isPlantedGrowthChild =
    ProcessInfo.processInfo.environment["RETAINGRAPH_PLANTED_GROWTH_CHILD"] == "1"

/// What the planted growth leaves behind, one per repetition.
final class PlantedGrowthEntry: @unchecked Sendable {
    let payload = [UInt8](repeating: 1, count: 32)
}

/// The global list that keeps every entry: the planted growth.
nonisolated(unsafe) var plantedGrowthLog: [PlantedGrowthEntry] = []

/// A test whose heap grows on purpose, run only in a child process so that its attachments can
/// be read from what Swift Testing saves (`--attachments-path`).
@Suite("Planted growth (runs only in HeapSnapshotAttachmentTests' child process)")
struct PlantedGrowthChild {
    @Test(
        "A planted growth under the trait", .enabled(if: isPlantedGrowthChild),
        .heapMustNotGrow(repeating: 10))
    func plantedGrowth() {
        plantedGrowthLog.append(PlantedGrowthEntry())
    }
}
