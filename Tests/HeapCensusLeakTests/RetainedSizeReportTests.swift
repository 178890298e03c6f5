import Foundation
import HeapCensus
import LeakTracking
import Testing

/// A cache entry with a payload of its own: two heap objects (the entry, its bytes' storage).
final class CachedPage {
    let bytes = [UInt8](repeating: 7, count: 200)
}

/// What a user leaks: a cache that keeps ten pages, itself kept by a global list forever.
final class PageCache {
    let pages = (0..<10).map { _ in CachedPage() }
}

/// The global list that keeps the caches.
nonisolated(unsafe) var keptPageCaches: [PageCache] = []

/// The README's way (the census linked and started, a `LeakWatcher`, `expectDeallocation`): a
/// leak report says what the leaked object keeps alive, in its text and in its JSON.
@Suite(.serialized) struct RetainedSizeReportTests {
    init() { HeapCensus.start() }

    @Test("A census-backed leak report says how much the leaked cache retains, in text and JSON")
    func leakReportSaysWhatTheLeakedObjectRetains() throws {
        let watcher = LeakWatcher(defaultGrace: .zero)
        let cache = PageCache()
        keptPageCaches.append(cache)
        defer { keptPageCaches.removeAll { $0 === cache } }
        watcher.expectDeallocation(of: cache, reason: "cache closed")
        let verdict = try #require(watcher.check().first)
        #expect(verdict.verdict == .leak)
        let report = try #require(verdict.report)

        // The cache, its array of pages, ten pages and their ten byte buffers.
        #expect(report.retainedCount == 22)
        let bytes = try #require(report.retainedBytes)
        #expect(bytes >= 10 * 200)
        let line = try #require(report.retainedDescription)
        #expect(line.hasPrefix("retains ") && line.contains(" KiB in 22 objects"))
        #expect(report.text.contains("\n  \(line)\n"))

        let json = try #require(
            try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any])
        #expect(json["retainedBytes"] as? Int == bytes)
        #expect(json["retainedCount"] as? Int == 22)
    }
}
