import Foundation
import HeapGraph
import ProcessAttach
import Testing

/// One heap, read from inside by the census and from outside by an attach (issue 30): the
/// fixture `InsideOutside` (Tests/Fixtures/InsideOutside) writes its census's snapshot and
/// waits; the test attaches to it and compares what both readers say of the fixture's own
/// objects: the same objects and types, the same references with the same ownership and role,
/// the same holders.
@Suite("One heap read from inside and from outside", .timeLimit(.minutes(10)))
struct InsideOutsideTests {
    @Test("The census and an attach read the same objects, references and holders")
    func bothReadersAgree() throws {
        let fixture = try InsideOutsideFixture.start()
        defer { fixture.stop() }
        let outside = try HeapSnapshot.capture(processID: fixture.processID)
        let inside = try HeapSnapshot(contentsOfFile: fixture.censusFile)

        let owners = inside.objects(ofType: "InsideOutside.Owner")
        #expect(owners.count == 7)
        let insideAddresses = Set(owners.map { inside[$0].address })
        let extra = outside.objects(ofType: "InsideOutside.Owner")
            .filter { !insideAddresses.contains(outside[$0].address) }
            .map {
                "\(outside[$0].address): \(outside.retentionPath(to: $0)?.description ?? "no path"), size \(outside.size(of: $0)), refs \(outside.references(from: $0).count)"
            }
        #expect(
            outside.objects(ofType: "InsideOutside.Owner").count == owners.count,
            "the attach's owners the census lacks: \(extra)")
        for owner in owners {
            let address = inside[owner].address
            let other = try #require(outside.object(at: address), "the attach misses \(owner)")
            let label = describe(owner, in: inside)
            #expect(outside[other].typeName == inside[owner].typeName, "\(label)")
            #expect(
                references(to: other, in: outside) == references(to: owner, in: inside),
                "\(label): references to it")
            let insidePath = inside.retentionPath(to: owner)
            let outsidePath = outside.retentionPath(to: other)
            #expect(
                outsidePath?.objects.map(\.typeName) == insidePath?.objects.map(\.typeName),
                "\(label): \(outsidePath?.description ?? "no path") vs \(insidePath?.description ?? "no path")"
            )
            #expect(
                outsidePath?.references.map(\.label) == insidePath?.references.map(\.label),
                "\(label): the references of its path")
            #expect(outsidePath?.holder == insidePath?.holder, "\(label): its holder")
        }
    }

    @Test("Each way of holding an object is read typed and named by both readers")
    func everyHolderIsNamed() throws {
        let fixture = try InsideOutsideFixture.start()
        defer { fixture.stop() }
        let outside = try HeapSnapshot.capture(processID: fixture.processID)
        let inside = try HeapSnapshot(contentsOfFile: fixture.censusFile)
        for (reader, heap) in [("census", inside), ("attach", outside)] {
            let paths = Dictionary(
                heap.objects(ofType: "InsideOutside.Owner").compactMap { owner in
                    heap.retentionPath(to: owner).map { (describe(owner, in: heap), $0) }
                }, uniquingKeysWith: { first, _ in first })
            #expect(paths["mutex"]?.holder.kind == .globalVariable, "\(reader)")
            #expect(
                paths["mutex"]?.references.map(\.label).first == ".entries.value",
                "\(reader): \(paths["mutex"]?.description ?? "-")")
            #expect(paths["closure"]?.holder.kind == .globalVariable, "\(reader)")
            #expect(
                paths["closure"]?.references.last?.role.isCapture == true,
                "\(reader): \(paths["closure"]?.description ?? "-")")
            #expect(paths["block"]?.holder == .dispatchBlock, "\(reader)")
            #expect(
                paths["block"]?.references.allSatisfy { $0.ownership == .strong } == true,
                "\(reader): a block's capture is typed: \(paths["block"]?.description ?? "-")")
            #expect(paths["timer"]?.holder == .scheduledTimer, "\(reader)")
            #expect(
                paths["thread"]?.holder == .thread(name: "named-worker"),
                "\(reader): \(paths["thread"]?.description ?? "-")")
            #expect(paths["task"]?.holder == .task, "\(reader)")
        }
    }

    @Test("A dictionary's heap string keys are held by the dictionary, read alike by both")
    func stringKeysAreHeldByTheirDictionary() throws {
        let fixture = try InsideOutsideFixture.start()
        defer { fixture.stop() }
        let outside = try HeapSnapshot.capture(processID: fixture.processID)
        let inside = try HeapSnapshot(contentsOfFile: fixture.censusFile)
        for (reader, heap) in [("census", inside), ("attach", outside)] {
            let keys = heap.objects(ofType: "String storage").compactMap {
                heap.retentionPath(to: $0)
            }.filter {
                $0.holder
                    == .globalVariable(
                        name:
                            "InsideOutside.countsByName : Swift.Dictionary<Swift.String, Swift.Int>"
                    )
            }
            #expect(keys.count == 3, "\(reader)")
            #expect(
                keys.allSatisfy { $0.references.last?.label == "key of [String: Int]" },
                "\(reader): \(keys.first?.description ?? "-")")
        }
    }

    /// An owner's label, read from its heap: the `String` stored in it is not followed, so the
    /// label is found by which holder the fixture gave it (see the fixture's `build()`).
    private func describe(_ owner: HeapObjectID, in heap: HeapSnapshot) -> String {
        guard let path = heap.retentionPath(to: owner) else { return "unheld \(owner)" }
        switch path.holder {
        case .dispatchBlock: return "block"
        case .scheduledTimer, .foundationTimer: return "timer"
        case .thread: return "thread"
        case .task: return "task"
        case .globalVariable:
            return path.references.contains { $0.role.isCapture } ? "closure" : "mutex"
        default: return "other \(path.holder)"
        }
    }

    /// The references to `id` from other objects, by their holder's address, ownership and role.
    private func references(to id: HeapObjectID, in heap: HeapSnapshot) -> Set<String> {
        Set(
            heap.references(to: id).map {
                "0x\(String(heap[$0.from].address, radix: 16)) \($0.ownership) \($0.role)"
            })
    }
}

/// The running fixture.
struct InsideOutsideFixture {
    let process: Process
    let input: Pipe
    let censusFile: String
    var processID: Int32 { process.processIdentifier }

    /// Starts the fixture with the census on from launch and waits for its `ready` line.
    static func start() throws -> InsideOutsideFixture {
        let executable = try #require(
            productsDirectory.map { $0.appendingPathComponent("InsideOutside") },
            "InsideOutside not found next to the tests")
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("inside-outside-\(UUID().uuidString).json").path
        let process = Process()
        process.executableURL = executable
        process.arguments = [file]
        var environment = ProcessInfo.processInfo.environment
        environment["RETAINGRAPH_CENSUS"] = "1"
        process.environment = environment
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let fixture = InsideOutsideFixture(process: process, input: input, censusFile: file)
        // The first line is "ready PID"; a fixture that dies first closes its output.
        let line = output.fileHandleForReading.readLine()
        guard line?.hasPrefix("ready ") == true else {
            fixture.stop()
            throw FixtureFailure(description: "InsideOutside did not start: \(line ?? "EOF")")
        }
        return fixture
    }

    /// Lets the fixture exit and removes its file.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: censusFile)
    }

    /// The build products directory: the test bundle's folder.
    static var productsDirectory: URL? {
        var directories = Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }
            .map { $0.bundleURL.deletingLastPathComponent() }
        directories.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories.first {
            FileManager.default.isExecutableFile(
                atPath: $0.appendingPathComponent("InsideOutside").path)
        }
    }

    struct FixtureFailure: Error, CustomStringConvertible {
        let description: String
    }
}

extension FileHandle {
    /// The next line (without its newline), or nil at the end of the file.
    fileprivate func readLine() -> String? {
        var bytes: [UInt8] = []
        while true {
            let data = readData(ofLength: 1)
            guard let byte = data.first else {
                return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
