import Foundation
import Testing

@testable import ProcessAttach

/// libswiftRemoteMirror aborts the process that calls it when its demangler cannot name a type
/// it built from a target's words (`Demangler.cpp:373`, seen by the reader fuzzer): the
/// metadata check keeps such types from it, and a failure that still happens inside it is
/// contained, said, and ends its use for the run (issue 32).
@Suite(
    "libswiftRemoteMirror's aborts: prevented by the metadata check, contained and said",
    .timeLimit(.minutes(10)))
struct MirrorContainmentTests {
    /// The attach-hostile fixture's memory, and its bogus `Holder`'s metadata: a copy of
    /// `Holder<Int>`'s whose argument is a fake struct whose fake module claims a parent.
    static func capturedBogusHolder() throws -> (memory: ProcessMemory, metadata: UInt) {
        let target = try AttachTargets.start("attach-hostile", ["10"])
        let stopped = try StoppedProcess(
            processID: target.pid, options: AttachOptions(maximumStop: .seconds(60)))
        let memory = try stopped.captureMemory()
        stopped.resume()
        let metadata = try #require(
            target.readyDetails.dropFirst(2).first.flatMap { UInt($0) }, "\(target.readyDetails)")
        return (memory, metadata)
    }

    @Test(
        "The mirror's abort naming a type with a planted argument returns, is said, and ends its use"
    )
    func abortInsideTheMirrorIsContained() throws {
        let (memory, metadata) = try Self.capturedBogusHolder()
        let library = try MirrorLibrary.load(path: nil)
        let mirror = try RemoteMirror(library: library, memory: memory)
        // Asked directly, past the check: the library builds the type, then aborts naming it.
        let type = mirror.typeRef(forMetadata: metadata)
        #expect(type != 0)
        #expect(mirror.failure == nil)
        #expect(mirror.name(of: type) == nil)
        let failure = try #require(mirror.failure)
        #expect(failure.contains("libswiftRemoteMirror failed on this process's metadata"))
        #expect(failure.contains("aborted"), "\(failure)")
        #expect(failure.contains("copyDemangledNameForTypeRef"), "\(failure)")
        // The context may be inconsistent: it is not asked again.
        #expect(mirror.typeRef(forMetadata: metadata) == 0)
        // A new context works.
        let fresh = try RemoteMirror(library: library, memory: memory)
        #expect(fresh.typeRef(forMetadata: metadata) != 0)
        #expect(fresh.failure == nil)
    }

    @Test("The metadata check refuses the bogus generic argument before the mirror sees it")
    func checkRefusesThePlantedArgument() throws {
        let (memory, metadata) = try Self.capturedBogusHolder()
        let library = try MirrorLibrary.load(path: nil)
        let source = MirrorMetadata(
            mirror: try RemoteMirror(library: library, memory: memory), memory: memory)
        #expect(source.objectKind(ofMetadata: metadata) == nil)
        #expect(source.refusedMetadata.contains(metadata))
        #expect(source.mirror.failure == nil)
        // The real metadata the copy was made from passes: the whole snapshot reads with no
        // failure of the mirror.
        let heap = try HeapSnapshot(memory)
        #expect(!heap.limitations.contains { $0.contains("libswiftRemoteMirror failed") })
        #expect(heap.objects(ofType: "attach_hostile.Element").count == 8)
    }

    /// Fixtures whose types span what the check follows: generic classes and structs, optionals,
    /// existentials, closures, tuples, noncopyable fields, tasks, timers, weak references.
    static let realPrograms: [(String, [String])] = [
        ("attach-mixed-holders", []), ("attach-noncopyable", []), ("attach-tasks", ["50"]),
        ("attach-timer", []), ("attach-weak-targets", ["30"]), ("attach-global-cache", ["3"]),
        ("attach-delegate-cycle", []), ("attach-symbolicated", ["10"]),
    ]

    @Test("No object of a real program is refused by the metadata check", arguments: realPrograms)
    func realProgramsPassTheCheck(fixture: String, arguments: [String]) throws {
        let target = try AttachTargets.start(fixture, arguments)
        let heap = try HeapSnapshot.capture(
            processID: target.pid, options: AttachOptions(maximumStop: .seconds(60)))
        let limits = heap.limitations.joined(separator: "\n")
        #expect(!limits.contains("failed the check"), "\(fixture): \(limits)")
        #expect(!limits.contains(RemoteMirror.failurePrefix), "\(fixture): \(limits)")
    }
}
