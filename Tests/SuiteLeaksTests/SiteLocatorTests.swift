import StackTraces
import Testing

@testable import SuiteLeaks

/// The "made at" rule on creation stacks as the symbolicator gives them: the line a person
/// would change is the first frame outside the leaked types' modules, the runtime and the test
/// frameworks, with a line, not an initializer, not another package's checkout.
@Suite("Made at: the line to change in a creation stack")
struct SiteLocatorTests {
    /// A frame of `module` (a mangled name that starts with it), at `file:line`.
    static func frame(
        _ function: String, module: String, file: String? = nil, line: Int? = nil,
        isSystem: Bool = false
    ) -> StackFrame {
        StackFrame(
            address: UInt(function.utf8.count), function: function,
            mangledName: "$s\(module.utf8.count)\(module)4Stub", file: file, line: line,
            isSystem: isSystem)
    }

    /// A test that calls a library's function, which calls a builder, which calls the
    /// initializer: the stack of the library's object, innermost first.
    static let libraryStack = [
        frame("Kit.Session.__allocating_init(user: String) -> Kit.Session", module: "Kit"),
        frame(
            "Kit.SessionBuilder.build() -> Kit.Session", module: "Kit",
            file: "/src/Kit/Client.swift", line: 48),
        frame(
            "static Kit.Client.openSession(for: String) -> Kit.Session", module: "Kit",
            file: "/src/Kit/Client.swift", line: 36),
        frame(
            "AppTests.LoginTests.testLogin() -> ()", module: "AppTests",
            file: "/src/Tests/AppTests/LoginTests.swift", line: 31),
        frame(
            "XCTest.XCTestCase.invokeTest() -> ()", module: "XCTest", file: "/x/XCTestCase.swift",
            line: 300),
    ]

    @Test("Three calls deep in a library, the test's line is where the object was made")
    func testLineThroughALibrary() throws {
        let chosen = try #require(SiteLocator.choose(in: Self.libraryStack, excluding: ["Kit"]))
        #expect(chosen.file == "/src/Tests/AppTests/LoginTests.swift")
        #expect(chosen.line == 31)
        #expect(SiteLocator.location(of: chosen) == "LoginTests.swift:31")
    }

    @Test("Types of the user's own module: the first line of theirs that is not an initializer")
    func ownTypesFallBackToTheirModule() throws {
        let chosen = try #require(
            SiteLocator.choose(in: Self.libraryStack, excluding: ["Kit", "AppTests"]))
        #expect(chosen.line == 48, "the builder's line, not the line-less allocating initializer")
    }

    @Test("Another package's checkout is passed over for the user's own code")
    func checkoutsArePassedOver() throws {
        let stack = [
            Self.frame(
                "NIOCore.ChannelPipeline.init()", module: "NIOCore",
                file: "/p/.build/checkouts/swift-nio/Sources/NIOCore/ChannelPipeline.swift",
                line: 10),
            Self.frame(
                "NIOPosix.ServerBootstrap.bind()", module: "NIOPosix",
                file: "/p/.build/checkouts/swift-nio/Sources/NIOPosix/Bootstrap.swift", line: 20),
            Self.frame(
                "Server.Application.run()", module: "Server",
                file: "/p/Sources/Server/Application.swift", line: 30),
        ]
        let chosen = try #require(SiteLocator.choose(in: stack, excluding: ["NIOCore"]))
        #expect(chosen.line == 30)
        // With only a dependency's frames outside the types' modules, that frame it is.
        let dependencyOnly = try #require(
            SiteLocator.choose(in: Array(stack.prefix(2)), excluding: ["NIOCore"]))
        #expect(dependencyOnly.line == 20)
    }

    @Test("System frames and the runtime's modules are never the answer")
    func runtimeIsPassedOver() throws {
        let stack = [
            Self.frame("Swift.Array.append(_:)", module: "Swift", file: "/s/Array.swift", line: 5),
            Self.frame("dispatch_async", module: "Dispatch", isSystem: true),
            Self.frame(
                "App.Cache.store()", module: "App", file: "/p/Sources/App/Cache.swift", line: 12),
        ]
        #expect(SiteLocator.choose(in: stack, excluding: [])?.line == 12)
    }

    @Test("A type's module is its name's first component; closure contexts have none")
    func modulesOfTypeNames() {
        #expect(SiteLocator.module(ofType: "NIOCore.ChannelHandlerContext") == "NIOCore")
        #expect(SiteLocator.module(ofType: "Kit.Outer.Inner<Swift.Int>") == "Kit")
        #expect(SiteLocator.module(ofType: "closure context (captures Session)") == nil)
        #expect(SiteLocator.module(ofType: "[Entry] storage") == nil)
        #expect(
            SiteLocator.modules(ofTypes: ["Kit.Session", "Kit.Connection", "closure context"])
                == ["Kit"])
    }
}
