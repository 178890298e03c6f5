import RetainGraphUtilities
import Testing

/// Type names read the same whoever read them: the census in process (`_typeName`) and an
/// attach through the remote mirror print private and local contexts differently, and both
/// spellings become the one a report shows.
@Suite("Type names as reports spell them")
struct TypeNameTests {
    @Test("Addresses of unknown contexts go, with the dot that follows them")
    func unknownContextsGo() {
        #expect(
            TypeNames.readable(
                "Foundation.FileHandle.(unknown context at $7f1777147d9c)"
                    + ".(unknown context at $7f1777147da4).NullDevice")
                == "Foundation.FileHandle.NullDevice")
        #expect(
            TypeNames.readable(
                "FoundationEssentials.LockedState<Swift.Optional<Swift.String>>"
                    + ".(unknown context at $7f17769b17f8)._Buffer")
                == "FoundationEssentials.LockedState<Swift.Optional<Swift.String>>._Buffer")
    }

    @Test("A private name loses its discriminator, whether an address or a hash")
    func discriminatorsGo() {
        #expect(TypeNames.readable("App.(Cache in $55d0c1f0a2b0)") == "App.Cache")
        #expect(
            TypeNames.readable(
                "NIOPosix.PooledBuffer.(BackingStorage in _A60F6109B609AAE4364CA86A428CBDC9)")
                == "NIOPosix.PooledBuffer.BackingStorage")
    }

    @Test("Other parentheses stay")
    func otherParenthesesStay() {
        #expect(TypeNames.readable("(Swift.Int, Swift.String)") == "(Swift.Int, Swift.String)")
        #expect(TypeNames.readable("App.Owner") == "App.Owner")
    }
}

@Suite("Type names inside other parentheses")
struct NestedTypeNameTests {
    @Test("A private context inside a function type's parentheses goes too")
    func nestedUnknownContextGoes() {
        #expect(
            TypeNames.readable(
                "Swift.Dictionary<Swift.UInt64, @Sendable ((unknown context at $7f55d23c9990)"
                    + ".MessageBox) -> ()>")
                == "Swift.Dictionary<Swift.UInt64, @Sendable (MessageBox) -> ()>")
    }

    @Test("A private name inside a tuple keeps its name")
    func nestedPrivateNameKeepsItsName() {
        #expect(
            TypeNames.readable("(App.(Cache in $7f0012ab), Swift.Int)") == "(App.Cache, Swift.Int)")
    }
}

@Suite("Generic arguments")
struct GenericArgumentNameTests {
    @Test("A type nested in a generic one keeps the outer arguments and loses its empty list")
    func emptyArgumentListGoes() {
        #expect(
            TypeNames.readable("Swift.AsyncStream<App.ConfigChange>.Continuation<>")
                == "Swift.AsyncStream<App.ConfigChange>.Continuation")
        #expect(TypeNames.readable("Swift._DequeBuffer<()>") == "Swift._DequeBuffer<()>")
    }
}
