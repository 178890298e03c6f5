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
        // An indirect case's payload lives in a box the compiler made.
        #expect(walked.reaches(holder, leaves[2], through: "state.running", .strong))
        #expect(walked.reaches(holder, leaves[3], through: "otherState.nested", .strong))
        #expect(walked.holds(holder, leaves[11], named: "result.success", .strong))
    }

    @Test("tuples are read by label or position")
    func tuples() {
        let holder = ValueHolder(leaves)
        let walked = Walked([holder], known: leaves)
        #expect(walked.holds(holder, leaves[3], named: "tuple.1", .strong))
        #expect(walked.holds(holder, leaves[4], named: "labelled.leaf", .strong))
    }

    @Test(
        "Any, AnyObject and protocol existentials are opened, named as boxes; weak ones stay weak")
    func existentials() {
        let holder = ValueHolder(leaves)
        let walked = Walked([holder], known: leaves)
        #expect(walked.holds(holder, leaves[5], named: "any (Any)", .strong))
        // A value too large for the existential's buffer lives in a box.
        #expect(walked.reaches(holder, leaves[6], through: "anyStruct (Any)", .strong))
        #expect(walked.holds(holder, leaves[7], named: "anyObject", .strong))
        #expect(walked.holds(holder, leaves[8], named: "delegate", .strong))
        #expect(walked.holds(holder, leaves[9], named: "weakDelegate", .weak))
        #expect(walked.holds(holder, leaves[10], named: "describing (Describing)", .strong))
        // An error is a boxed object like any other.
        #expect(walked.references(from: holder, named: "error").count == 1)
    }

    @Test("arrays, dictionaries, sets and optional arrays hold their elements through storage")
    func collections() {
        let holder = CollectionHolder(leaves)
        let walked = Walked([holder], known: leaves)
        #expect(walked.reaches(holder, leaves[0], through: "array", .strong))
        #expect(walked.reaches(holder, leaves[1], through: "array", .strong))
        #expect(walked.reaches(holder, leaves[2], through: "dictionary", .strong))
        #expect(walked.reaches(holder, leaves[3], through: "intKeyed", .strong))
        #expect(walked.reaches(holder, leaves[4], through: "set", .strong))
        #expect(walked.reaches(holder, leaves[5], through: "optionalArray", .strong))
        #expect(walked.reaches(holder, leaves[6], through: "weakBoxes", .weak))
        #expect(walked.reaches(holder, leaves[7], through: "contiguous", .strong))
        // One reference per collection: to its storage object.
        #expect(walked.result.references(from: walked.id(holder)).count == 8)
        let storage = walked.references(from: holder, named: "dictionary").first
        #expect(storage.flatMap { walked.node($0.to)?.typeName } == "[String: Leaf] storage")
        #expect(
            storage.map { walked.result.references(from: $0.to).map(\.role) }
                == [.dictionaryValue(collection: "[String: Leaf]", path: "")])
    }

    @Test("Standard-library values are leaves; Foundation's are read like any struct")
    func foundationValuesAreLeaves() {
        let leaf = Leaf()
        let holder = FoundationValues(leaf)
        let walked = Walked([holder], known: [leaf])
        let roles = walked.result.references(from: walked.id(holder)).map(\.role)
        // The census reads Foundation's structs (NotificationCenter keeps its observers in
        // one), and so does the walk: a URL's storage object is a real reference.
        #expect(roles.contains(.storedProperty(name: "leaf")))
        #expect(!roles.contains(.storedProperty(name: "text")))
        #expect(!roles.contains(.storedProperty(name: "date")))
        #expect(walked.result.diagnostics.isEmpty)
    }

    @Test("only the first elements of a large collection are read, and the walk says so")
    func collectionLimit() {
        let many = (0..<50).map { Leaf("n\($0)") }
        let box = GenericBox(many)
        let walked = Walked([box], limits: WalkLimits(maxCollectionElements: 10))
        let storage = walked.result.references(from: walked.id(box)).map(\.to)
        #expect(storage.count == 1)
        #expect(storage.map { walked.result.references(from: $0).count } == [10])
        #expect(!walked.result.isComplete)
        #expect(!walked.diagnostics(.limitReached).isEmpty)
    }
}
