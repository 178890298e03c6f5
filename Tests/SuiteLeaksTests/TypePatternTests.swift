import Foundation
import LeakTracking
import Testing

@Suite("Type patterns accept a library's leaks")
struct TypePatternTests {
    @Test("A pattern matches whole type names, `*` any run of characters")
    func matchesWholeNames() {
        #expect(TypePattern("NIOPosix.*").matches("NIOPosix.SelectableEventLoop"))
        #expect(!TypePattern("NIOPosix.*").matches("MyApp.NIOPosixWrapper"))
        #expect(TypePattern("*EventLoop").matches("NIOPosix.SelectableEventLoop"))
        #expect(TypePattern("NIO*.*Loop").matches("NIOPosix.SelectableEventLoop"))
        #expect(!TypePattern("NIO*.*Loop").matches("NIOPosix.SelectableEventLoopGroup"))
        #expect(TypePattern("MyApp.Owner").matches("MyApp.Owner"))
        #expect(!TypePattern("MyApp.Owner").matches("MyApp.OwnerBox"))
        #expect(TypePattern("*").matches(""))
        #expect(
            TypePattern.list(" NIOPosix.* ,, XCTest.*").map(\.pattern) == [
                "NIOPosix.*", "XCTest.*",
            ])
    }

    /// A report of a cycle between objects of the given types.
    static func report(_ types: [String], fingerprint: String) throws -> LeakReport {
        let objects = types.enumerated().map { index, type in
            """
            {"id": "o\(index)", "typeName": "\(type)", "kind": "object", "isDeallocated": false}
            """
        }
        let json = """
            {"schemaVersion": 1, "verdict": "LEAK", "fingerprint": "\(fingerprint)",
             "occurrences": 1, "subject": \(objects[0]), "reason": "test", "graceSeconds": 0,
             "secondsPastDeadline": 0, "retention": "cycle", "objects": [\(objects.joined(separator: ","))],
             "path": [], "context": [], "creationTraces": [], "notes": [],
             "hint": {"code": "generic", "text": "break it"}}
            """
        return try LeakReport.decode(from: Data(json.utf8))
    }

    @Test("A comparison lists a new leak a pattern accepts as allowed, not new")
    func comparisonAllowsByPattern() throws {
        let library = try Self.report(
            ["NIOCore.Channel", "NIOCore.Pipeline"], fingerprint: "1111111111111111")
        let ours = try Self.report(
            ["MyApp.Parent", "MyApp.Child"], fingerprint: "2222222222222222")
        let comparison = LeakReportComparison(
            old: [], new: [library, ours], allowing: [TypePattern("NIOCore.*")])
        #expect(comparison.new.map(\.fingerprint) == ["2222222222222222"])
        #expect(comparison.allowed.map(\.fingerprint) == ["1111111111111111"])
        #expect(comparison.text.contains("allowed by type pattern (1):"))
        let none = LeakReportComparison(
            old: [], new: [library], allowing: [TypePattern("NIOCore.*")])
        #expect(!none.hasNewLeaks)
    }
}
