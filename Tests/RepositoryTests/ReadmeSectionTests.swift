import Foundation
import Testing

/// README.md's "Use it in your package" checked against the manifest and the tests that run
/// its code (Tests/ReadmeTests).
@Suite("README.md's \"Use it in your package\" is true")
struct ReadmeSectionTests {
    /// The section's text, up to the next `## ` heading.
    static func section() throws -> String {
        let readme = try Repository.text("README.md")
        let start = try #require(readme.range(of: "\n## Use it in your package\n"))
        let rest = readme[start.upperBound...]
        let end = rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    /// The section's fenced Swift code blocks.
    static func swiftBlocks() throws -> [String] {
        let parts = try section().components(separatedBy: "```swift\n").dropFirst()
        return parts.compactMap { part in part.components(separatedBy: "\n```").first }
    }

    @Test("It comes before the demo, on the README's first screens")
    func placement() throws {
        let readme = try Repository.text("README.md")
        let use = try #require(readme.range(of: "## Use it in your package"))
        let demo = try #require(readme.range(of: "## What `make demo` prints"))
        #expect(use.lowerBound < demo.lowerBound)
    }

    @Test("The dependency line names this package, and every product it names exists")
    func packageLine() throws {
        let blocks = try Self.swiftBlocks()
        let manifest = try #require(blocks.first { $0.contains(".package(url:") })
        // No release is tagged: the line names the branch every clone has.
        let url = try #require(
            manifest.firstMatch(of: /\.package\(url: "([^"]+)", branch: "main"\)/))
        let identity = String(url.1).split(separator: "/").last.map {
            $0.hasSuffix(".git") ? String($0.dropLast(4)) : String($0)
        }
        #expect(identity == "RetainGraph")
        let libraries = Set(try Repository.manifest().libraries)
        let named = manifest.matches(of: /\.product\(name: "([^"]+)", package: "([^"]+)"\)/)
        #expect(named.count == 6)
        for product in named {
            #expect(libraries.contains(String(product.1)), "\(product.1) is a library product")
            #expect(product.2 == "RetainGraph")
        }
        // Every product in the list below the snippet is a library product too.
        let listed = try Self.section().matches(
            of: /^- \*\*([A-Za-z]+)\*\*/.anchorsMatchLineEndings())
        #expect(listed.count >= 3)
        for product in listed {
            #expect(libraries.contains(String(product.1)), "\(product.1) is a library product")
        }
    }

    @Test("The test target that runs the section's code depends on exactly the products it names")
    func readmeTestsUseOnlyTheNamedProducts() throws {
        let manifest = try #require(try Self.swiftBlocks().first { $0.contains(".package(url:") })
        let named = Set(
            manifest.matches(of: /\.product\(name: "([^"]+)"/).map { String($0.1) })
        let target = try #require(
            try Repository.manifest().targets.first { $0.name == "ReadmeTests" })
        #expect(Set(target.dependencies) == named)
    }

    @Test("Every code block of the section runs verbatim in Tests/ReadmeTests")
    func codeBlocksAreTested() throws {
        let sources = try FileManager.default.contentsOfDirectory(
            atPath: Repository.root.appendingPathComponent("Tests/ReadmeTests").path
        ).filter { $0.hasSuffix(".swift") }.map { try Repository.text("Tests/ReadmeTests/\($0)") }
        let code = try Self.swiftBlocks().filter { !$0.contains(".package(url:") }
        #expect(code.count == 3)
        for block in code {
            let found = sources.contains { source in
                source.contains("// README:begin\n" + block + "\n// README:end")
            }
            #expect(found, "not run by Tests/ReadmeTests:\n\(block)")
        }
    }

    @Test("The one line it promises is the one the tests use")
    func oneLine() throws {
        let section = try Self.section()
        #expect(section.contains("LeakWatcher.current.expectDeallocation(of: ticker"))
        #expect(section.contains("@Test(.detectsLeaks)"))
        #expect(section.contains("trackForLeaks(ticker)"))
    }

    @Test("It leads with the census that needs no code, then the other ways, with a real report")
    func censusSection() throws {
        let section = try Self.section()
        #expect(section.contains("### Who holds it: the heap census"))
        let noCode = try #require(section.range(of: "product to your test target; that is all"))
        let start = try #require(section.range(of: "HeapCensus.start()"))
        #expect(noCode.lowerBound < start.lowerBound)
        #expect(section.contains("RETAINGRAPH_CENSUS=1"))
        #expect(!section.contains("HeapCensus.start()  //"))
        #expect(
            section.contains(
                "│ GC root: a Task (the concurrency runtime holds it while it runs or sleeps)"))
    }
}
