import ReferenceReflection
import RetainGraph
import Testing

@Suite("Stored properties: kinds of reference storage")
struct StoredPropertyWalkTests {
    @Test(
        "strong, optional and inherited properties are strong references named after the property")
    func strongOptionalAndInherited() {
        let strong = Leaf()
        let optional = Leaf()
        let inherited = Leaf()
        let other = Leaf()
        let zoo = FieldZoo(
            strong: strong, optional: optional, weak: other, unowned: other, unsafe: other,
            inherited: inherited)
        let walked = Walked([zoo], known: [strong, optional, inherited, other])
        #expect(walked.holds(zoo, strong, named: "strong", .strong))
        #expect(walked.holds(zoo, optional, named: "optional", .strong))
        #expect(walked.holds(zoo, inherited, named: "inherited", .strong))
        #expect(walked.references(from: zoo, named: "emptyOptional").isEmpty)
        #expect(walked.result.references.allSatisfy { $0.isDiscovered })
        #expect(walked.result.isComplete)
    }

    @Test("a weak property is a weak reference to its live target, and nothing when nil")
    func weakProperty() {
        let target = Leaf()
        let other = Leaf()
        let zoo = FieldZoo(
            strong: other, optional: nil, weak: target, unowned: other, unsafe: other,
            inherited: nil)
        let walked = Walked([zoo], known: [target, other])
        #expect(walked.holds(zoo, target, named: "weakRef", .weak))
        #expect(walked.reference(from: zoo, named: "weakRef")?.ownership == .weak)
        #expect(walked.references(from: zoo, named: "weakToNobody").isEmpty)
    }

    @Test("unowned and unowned(unsafe) properties are unowned references, never strong")
    func unownedProperties() {
        let target = Leaf()
        let zoo = FieldZoo(
            strong: target, optional: nil, weak: nil, unowned: target, unsafe: target,
            inherited: nil)
        let walked = Walked([zoo], known: [target])
        #expect(walked.holds(zoo, target, named: "unownedRef", .unowned))
        // The unowned(unsafe) word is matched with an object the walk holds, not dereferenced.
        #expect(walked.holds(zoo, target, named: "unsafeRef", .unownedUnsafe))
        #expect(!walked.holds(zoo, target, named: "unsafeRef", .strong))
    }

    @Test("an unowned(unsafe) target the walk did not reach is reported, not guessed")
    func unsafeTargetNotReached() {
        let reached = Leaf()
        let elsewhere = Leaf()
        let zoo = FieldZoo(
            strong: reached, optional: nil, weak: nil, unowned: reached, unsafe: elsewhere,
            inherited: nil)
        let walked = Walked([zoo], known: [reached, elsewhere])
        #expect(walked.references(from: zoo, named: "unsafeRef").isEmpty)
        #expect(walked.diagnostics(.unresolvedTarget).contains { $0.detail.contains("unsafeRef") })
    }

    @Test("an unowned reference to a deinitialised object is reported and not followed")
    func unownedToDeinitialisedObject() {
        var target: Leaf? = Leaf("doomed")
        let holder = UnownedHolder(target!)
        target = nil  // deinitialised; its memory lives on for the unowned reference
        let walked = Walked([holder])
        #expect(walked.references(from: holder, named: "target").isEmpty)
        #expect(walked.diagnostics(.deallocatedTarget).count == 1)
    }

    @Test("generic classes and generic superclasses expose their fields with substituted types")
    func genericClasses() {
        let leaf = Leaf()
        let base = Leaf()
        let own = Leaf()
        let box = GenericBox(leaf)
        let arrayBox = GenericBox([leaf, own])
        let intBox = GenericBox(7)
        let child = GenericChild(base: base, own: own)
        let walked = Walked([box, arrayBox, intBox, child], known: [leaf, base, own])
        #expect(walked.holds(box, leaf, named: "value", .strong))
        #expect(walked.reaches(arrayBox, own, through: "value", .strong))
        #expect(walked.result.references(from: walked.id(intBox)).isEmpty)
        #expect(walked.holds(child, base, named: "baseValue", .strong))
        #expect(walked.holds(child, own, named: "own", .strong))
    }

    @Test("the nodes of objects the graph knows keep their identity; others get fresh ones")
    func identities() {
        let known = Leaf()
        let unknown = Leaf()
        let zoo = FieldZoo(
            strong: known, optional: unknown, weak: nil, unowned: known, unsafe: known,
            inherited: nil)
        let walked = Walked([zoo], known: [known])
        #expect(walked.result.rootIDs == [walked.id(zoo)])
        let toUnknown = walked.reference(from: zoo, named: "optional")
        #expect(toUnknown.map { $0.to.rawValue >= ReferenceWalker.discoveredIDBase } == true)
        #expect(walked.node(toUnknown!.to)?.typeName == "ReferenceReflectionTests.Leaf")
        #expect(walked.reference(from: zoo, named: "strong")?.to == walked.id(known))
    }
}
