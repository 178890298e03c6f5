import Testing

@testable import ProcessAttach

/// A closure's captured `var` is a box: the remote mirror's name for its type must read as one,
/// however the name was tidied, so that the attach names the capture `var` as the census does.
@Suite("A captured var's box, told by its type's name")
struct BoxTypeNameTests {
    @Test("A SIL box is a box, with or without its empty generic brackets")
    func aSILBoxIsABox() {
        #expect(MirrorMetadata.isBoxTypeName("<> { var Swift.Int } <>"))
        // As names read once empty `<>` are dropped: 1,000 closure contexts of
        // attach-scale's comparison were named `captures  { var Int } , Item`.
        #expect(MirrorMetadata.isBoxTypeName(" { var Swift.Int } "))
        #expect(MirrorMetadata.isBoxTypeName(""))
        #expect(MirrorMetadata.isBoxTypeName("Builtin.NativeObject"))
    }

    @Test("A type of the program is not a box")
    func aTypeIsNotABox() {
        #expect(!MirrorMetadata.isBoxTypeName("App.Item"))
        #expect(!MirrorMetadata.isBoxTypeName("Swift.Optional<App.Item>"))
    }
}
