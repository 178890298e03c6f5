import ReferenceReflection
import RetainGraph
import Testing

@Suite("Values: structs, enums, tuples, existentials and collections")
struct ValueWalkTests {
    let leaves = (0..<12).map { Leaf("leaf \($0)") }

    @Test("structs are read field by field, including their weak fields")
    func structs() {
        let holder = ValueHolder(leaves)
        let walked = Walked([holder], known: leaves)
        #expect(walked.holds(holder, leaves[0], named: "pair.first", .strong))
        #expect(walked.holds(holder, leaves[1], named: "pair.second", .weak))
    }

    @Test("enum payloads, labelled payloads and indirect cases are read through the active case")
    func enums() {
        let holder = ValueHolder(leaves)
        holder.otherState = .nested(.paused(reason: "tired", holder: leaves[3]))
        let walked = Walked([holder], known: leaves)
        #expect(walked.holds(holder, leaves[2], named: "state.running", .strong))
        #expect(walked.holds(holder, leaves[3], named: "otherState.nested.paused.holder", .strong))
        #expect(walked.holds(holder, leaves[11], named: "result.success", .strong))
    }

    @Test("tuples are read by label or position")
    func tuples() {
        let holder = ValueHolder(leaves)
        let walked = Walked([holder], known: leaves)
        #expect(walked.holds(holder, leaves[3], named: "tuple.1", .strong))
        #expect(walked.holds(holder, leaves[4], named: "labelled.leaf", .strong))
    }

    @Test("Any, AnyObject and protocol existentials are opened; weak existentials stay weak")
    func existentials() {
        let holder = ValueHolder(leaves)
        let walked = Walked([holder], known: leaves)
        #expect(walked.holds(holder, leaves[5], named: "any", .strong))
        #expect(walked.holds(holder, leaves[6], named: "anyStruct.first", .strong))
        #expect(walked.holds(holder, leaves[7], named: "anyObject", .strong))
        #expect(walked.holds(holder, leaves[8], named: "delegate", .strong))
        #expect(walked.holds(holder, leaves[9], named: "weakDelegate", .weak))
        #expect(walked.holds(holder, leaves[10], named: "describing", .strong))
        #expect(walked.references(from: holder, named: "error").isEmpty)
    }

    @Test("arrays, dictionaries, sets and optional arrays hold their elements strongly")
    func collections() {
        let holder = CollectionHolder(leaves)
        let walked = Walked([holder], known: leaves)
        #expect(walked.holds(holder, leaves[0], named: "array[0]", .strong))
        #expect(walked.holds(holder, leaves[1], named: "array[1]", .strong))
        #expect(walked.holds(holder, leaves[2], named: "dictionary[\"a\"]", .strong))
        #expect(walked.holds(holder, leaves[3], named: "intKeyed[7][0]", .strong))
        #expect(walked.holds(holder, leaves[4], named: "set[]", .strong))
        #expect(walked.holds(holder, leaves[5], named: "optionalArray[0]", .strong))
        #expect(walked.holds(holder, leaves[6], named: "weakBoxes[0].value", .weak))
        #expect(walked.holds(holder, leaves[7], named: "contiguous[0]", .strong))
        #expect(walked.result.references(from: walked.id(holder)).count == 8)
    }

    @Test("Foundation and standard-library value types are leaves: no references, no noise")
    func foundationValuesAreLeaves() {
        let leaf = Leaf()
        let holder = FoundationValues(leaf)
        let walked = Walked([holder], known: [leaf])
        #expect(
            walked.result.references(from: walked.id(holder)).map(\.role) == [
                .storedProperty(name: "leaf")
            ])
        #expect(walked.result.diagnostics.isEmpty)
    }

    @Test("only the first elements of a large collection are read, and the walk says so")
    func collectionLimit() {
        let many = (0..<50).map { Leaf("n\($0)") }
        let box = GenericBox(many)
        let walked = Walked([box], limits: WalkLimits(maxCollectionElements: 10))
        #expect(walked.result.references(from: walked.id(box)).count == 10)
        #expect(!walked.result.isComplete)
        #expect(!walked.diagnostics(.limitReached).isEmpty)
    }
}
