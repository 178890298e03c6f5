import Foundation
import HeapCensus
import Testing
import _CreationStackLibrary

/// Widgets made through the fixture library, kept alive for the census to find.
nonisolated(unsafe) var keptWidgets: [Widget] = []

/// A test's line that calls a library's function that reaches an initializer three calls deep:
/// the creation stack still holds the test's line, and `userFrame(excludingModules:)` picks it.
/// Public API only.
@Suite(.serialized) struct CreationStackTests {
    init() { HeapCensus.start() }

    @Test func aLibraryInitializerThreeCallsDeepNamesTheTestsLine() throws {
        let line = #line + 1
        keptWidgets.append(WidgetFactory.make())
        let widget = try #require(keptWidgets.last)
        let site = try #require(HeapCensus.creationSite(of: widget))
        let frames = site.frames().map(\.description)
        let frame = site.userFrame(excludingModules: ["_CreationStackLibrary"])
        #expect(frame?.file?.hasSuffix("CreationStackTests.swift") == true, "\(frames)")
        #expect(frame?.line == line, "\(frames)")
        #expect(
            site.userLocation(excludingModules: ["_CreationStackLibrary"])
                == "CreationStackTests.swift:\(line)")
        // The two innermost frames alone (the old creation site) are both in the library.
        let pair = CreationSite(
            allocatingCaller: site.allocatingCaller, callerOfCaller: site.callerOfCaller)
        #expect(pair.userFrame(excludingModules: ["_CreationStackLibrary"]) == nil, "\(frames)")
        #expect(site.returnAddresses.count > 3)
        #expect(site.returnAddresses.count <= CreationSite.maximumDepth)
        #expect(site.stack.addresses == site.returnAddresses)
        #expect(site.trace.addresses == [site.allocatingCaller, site.callerOfCaller])
    }

    @Test func aFrameWithASourceLinePrevailsOverTheLinelessAllocatingInitializer() throws {
        keptWidgets.append(WidgetFactory.make())
        let widget = try #require(keptWidgets.last)
        let site = try #require(HeapCensus.creationSite(of: widget))
        let frames = site.frames()
        // The innermost frame is the allocating initializer; the library's own line that
        // called it is chosen when no module is excluded.
        let frame = try #require(site.userFrame(excludingModules: []), "\(frames)")
        #expect(frame.file?.hasSuffix("Widgets.swift") == true, "\(frames)")
        #expect(frame.function?.contains("__allocating_init") == false, "\(frames)")
        #expect(frame.line.map { $0 > 0 } == true, "\(frames)")
    }

    @Test func theRuntimeIsNeverTheChosenFrame() throws {
        keptWidgets.append(WidgetFactory.make())
        let widget = try #require(keptWidgets.last)
        let site = try #require(HeapCensus.creationSite(of: widget))
        // Excluding this test module as well leaves only the test runner's frames above it,
        // which are system frames: there is no user frame.
        let frame = site.userFrame(
            excludingModules: ["_CreationStackLibrary", "HeapCensusTests"])
        #expect(
            frame.map { !$0.isSystem && !CreationSite.runtimeModules.contains($0.module ?? "") }
                ?? true)
    }

    @Test func theChosenLineIsTheSameOnEveryRun() throws {
        var chosen: [String] = []
        for _ in 0..<5 {
            let outcome = try FixtureProgram.run(["site"], deadline: 120)
            guard case .exited(let status, let output) = outcome else {
                Issue.record("the site run hung")
                return
            }
            #expect(status == 0, "\(output)")
            let lines = output.split(separator: "\n").map(String.init)
            let line = try #require(lines.first { $0.hasPrefix("line=") }?.dropFirst(5))
            let answer = try #require(lines.first { $0.hasPrefix("chosen=") }?.dropFirst(7))
            #expect(answer == "SiteRun.swift:\(line)", "\(output)")
            chosen.append(String(answer))
        }
        #expect(Set(chosen).count == 1, "\(chosen)")
    }
}

/// A long process makes more distinct creation stacks than the depot has numbers for (the
/// project's own full test suite does): an object made after that still has a site, and the
/// site still names the line that made it. Run in a child process
/// (`census-stacks-fixture many-stacks COUNT`), whose depot starts empty: it allocates at COUNT
/// distinct stacks (recursion along distinct call paths, to depths of 8 to 10 levels), then
/// makes a `Widget` through the fixture library, three calls below its line.
@Suite struct ManyCreationStacksTests {
    /// The fixture's report: the making line, the chosen location, the site's depth, and the
    /// depot's counts.
    struct Report {
        var line: String
        var chosen: String
        var depth: Int
        var output: String
    }

    static func run(stacks: Int) throws -> Report? {
        let outcome = try FixtureProgram.run(["many-stacks", "\(stacks)"], deadline: 300)
        guard case .exited(let status, let output) = outcome else {
            Issue.record("the many-stacks run hung")
            return nil
        }
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        func value(_ key: String) -> String? {
            lines.first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        return Report(
            line: try #require(value("line"), "\(output)"),
            chosen: try #require(value("chosen"), "\(output)"),
            depth: Int(value("depth") ?? "") ?? 0, output: output)
    }

    @Test func anObjectMadeAfterMoreThan65535DistinctStacksNamesItsLine() throws {
        // 80,000 distinct stacks: more than 16-bit numbers hold, fewer than the numbers for
        // whole stacks on x86_64 (three quarters of 2^17), where every stack is kept whole.
        let report = try #require(try Self.run(stacks: 80_000))
        #expect(report.chosen == "ManyStacksRun.swift:\(report.line)", "\(report.output)")
        #expect(report.depth >= 4, "\(report.output)")
        #if arch(x86_64)
        #expect(report.output.contains("shortened=0 dropped=0"), "\(report.output)")
        #endif
    }

    @Test func pastEveryNumberForWholeStacksAnObjectKeepsTheInnermostFramesAndItsLine() throws {
        // A million distinct stacks: more than the numbers for whole stacks on any
        // architecture, so the widget's stack is kept shortened; its innermost frames still
        // reach the line three calls below which the initializer ran.
        let report = try #require(try Self.run(stacks: 1_000_000))
        #expect(report.chosen == "ManyStacksRun.swift:\(report.line)", "\(report.output)")
        #expect(report.output.contains("dropped=0"), "\(report.output)")
        #expect(!report.output.contains("shortened=0 "), "\(report.output)")
        #expect(report.depth >= 4, "\(report.output)")
    }
}

/// The `Runtime` module's per-thread ELF image cache is not left on the symbolicating thread.
@Suite struct SymbolicationCacheTests {
    @Test func aSymbolicationLeavesNoRuntimeImageSourceAlive() throws {
        let outcome = try FixtureProgram.run(["images"], deadline: 120)
        guard case .exited(let status, let output) = outcome else {
            Issue.record("the images run hung")
            return
        }
        #expect(status == 0, "\(output)")
        #expect(output.contains("image-sources=0"), "\(output)")
        #expect(output.contains("(libc.so.6)"), "\(output)")
    }
}
