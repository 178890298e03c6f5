import Foundation
import Testing

@testable import StackTraces

/// Running the symbolizer as a child process: its output read in full, failures told apart,
/// nothing of ours inherited, nothing left behind.
@Suite("Symbolizer process")
struct SymbolizerProcessTests {
    @Test func outputLargerThanAPipeIsReadInFull() throws {
        let result = SymbolizerProcess.run(
            "/bin/sh", arguments: ["-c", "head -c 1000000 /dev/zero"], timeout: .seconds(60))
        let output = try result.get()
        #expect(output.count == 1_000_000)
        #expect(output.allSatisfy { $0 == 0 })
    }

    @Test func theChildInheritsOnlyTheStandardDescriptors() throws {
        // A descriptor of ours without close-on-exec: the child must still not get it.
        let leaky = open("/dev/null", O_RDONLY)
        try #require(leaky > 2)
        defer { close(leaky) }
        let output = try SymbolizerProcess.run(
            "/bin/ls", arguments: ["/proc/self/fd"], timeout: .seconds(60)
        ).get()
        let descriptors = Set(
            String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap {
                Int32($0)
            })
        // 0, 1 and 2, and the directory `ls` itself opened to list them.
        #expect(descriptors.isSubset(of: [0, 1, 2, 3]), "\(descriptors.sorted())")
        #expect(descriptors.isSuperset(of: [0, 1, 2]))
        #expect(!descriptors.contains(leaky) || leaky == 3)
    }

    @Test func anExitStatusOtherThanZeroIsAFailure() {
        let result = SymbolizerProcess.run(
            "/bin/sh", arguments: ["-c", "echo partial; exit 3"], timeout: .seconds(60))
        #expect(throws: SymbolizerProcess.Failure.exited(status: 3)) { try result.get() }
    }

    @Test func aMissingProgramCannotStart() {
        let result = SymbolizerProcess.run(
            "/nonexistent/program", arguments: [], timeout: .seconds(60))
        #expect(throws: SymbolizerProcess.Failure.couldNotStart(errno: ENOENT)) {
            try result.get()
        }
    }

    @Test func aChildThatClosesItsOutputButLivesOnIsKilledAtTheDeadline() throws {
        // `exec >&-` closes standard output: the pipe reaches end of file at once, and only the
        // wait for the child's exit can time out.
        let result = SymbolizerProcess.run(
            "/bin/sh", arguments: ["-c", "echo $$; exec >&-; exec sleep 600"],
            timeout: .milliseconds(300))
        #expect(throws: SymbolizerProcess.Failure.timedOut) { try result.get() }
    }

    @Test func theLoaderPlacesTheTestBundleWhereItsFramesSay() throws {
        let trace = StackTrace.capture()
        let address = try #require(trace.addresses.first)
        let image = try #require(LoadedImage.containing(address - 1))
        #expect(image.path == (try LoadedCode.executablePath()))
        #expect(image.name == "RetainGraphPackageTests.xctest")
        // The test bundle is position-independent and its first segment starts at file address
        // 0: its base is its load bias.
        #expect(image.base == image.bias)
        let frame = try #require(trace.symbolicated().first)
        #expect(frame.offsetInImage == address - image.base)
        #expect(frame.imagePath == image.path)
        #expect(LoadedImage.containing(16) == nil)
    }
}
