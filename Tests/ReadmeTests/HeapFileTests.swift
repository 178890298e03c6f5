// README.md's "The whole heap in Chrome DevTools": the one line that writes a file, as a user
// writes it (HeapCensus only, which the census of a test process records from launch).
import Foundation
import HeapCensus
import Testing

/// An object of this test's own, to find by name in the written file.
final class DevToolsVisibleSession {
    var name = "session"
}

@Test("The README's line writes a .heapsnapshot that names the test's own objects")
func readmeLineWritesAHeapSnapshot() throws {
    let kept = DevToolsVisibleSession()
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("readme-\(getpid()).heapsnapshot").path
    defer { try? FileManager.default.removeItem(atPath: path) }

    try HeapCensus.snapshot().write(toFile: path)

    let data = try #require(FileManager.default.contents(atPath: path))
    let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let snapshot = try #require(json["snapshot"] as? [String: Any])
    #expect((snapshot["node_count"] as? Int ?? 0) > 1)
    let strings = try #require(json["strings"] as? [String])
    #expect(strings.contains { $0.hasSuffix("DevToolsVisibleSession") })
    withExtendedLifetime(kept) {}
}
