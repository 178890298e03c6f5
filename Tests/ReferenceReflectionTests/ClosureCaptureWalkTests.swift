import ReferenceReflection
import RetainGraph
import Testing

@Suite("Closures stored in properties: contexts and captures")
struct ClosureCaptureWalkTests {
    @Test("a closure capturing only self: its context is self, one reference holder ⇒ holder")
    func strongSelf() {
        let holder = ClosureHolder()
        holder.captureStrongSelf()
        defer { holder.action = nil }
        let walked = Walked([holder])
        // The compiler made `self` the closure's context: there is no closure object, and the
        // stored closure is one reference, a capture.
        let stored = walked.reference(from: holder, named: "action")
        #expect(stored?.ownership == .strong)
        #expect(stored?.to == walked.id(holder))
        #expect(stored?.role == .closureCapture(property: "action", captured: "ClosureHolder"))
        #expect(stored?.role.isCapture == true)
        let snapshot = walked.graph.snapshot().addingDiscoveredReferences(from: walked.result)
        #expect(snapshot.stronglyConnectedComponents().isInCycle(walked.id(holder)))
    }

    @Test("[weak self] is a weak capture and makes no strong cycle")
    func weakSelf() {
        let holder = ClosureHolder()
        holder.captureWeakSelf()
        let walked = Walked([holder])
        #expect(walked.closure(of: holder, property: "action", reaches: holder, .weak))
        #expect(!walked.closure(of: holder, property: "action", reaches: holder, .strong))
        let snapshot = walked.graph.snapshot().addingDiscoveredReferences(from: walked.result)
        #expect(!snapshot.stronglyConnectedComponents().isInCycle(walked.id(holder)))
    }

    @Test("[unowned self] is an unowned capture")
    func unownedSelf() {
        let holder = ClosureHolder()
        holder.captureUnownedSelf()
        let walked = Walked([holder])
        #expect(walked.closure(of: holder, property: "action", reaches: holder, .unowned))
        #expect(!walked.closure(of: holder, property: "action", reaches: holder, .strong))
    }

    @Test("a method reference holds its receiver strongly")
    func methodReference() {
        let holder = ClosureHolder()
        holder.captureMethod()
        defer { holder.action = nil }
        let walked = Walked([holder])
        #expect(walked.closure(of: holder, property: "action", reaches: holder, .strong))
    }

    @Test("a captured var's box holds its current value strongly")
    func capturedVarBox() {
        let holder = ClosureHolder()
        let leaf = Leaf()
        holder.captureVarBox(leaf)
        let walked = Walked([holder], known: [leaf])
        #expect(walked.closure(of: holder, property: "action", reaches: leaf, .strong))
    }

    @Test("several captures: strong self, a weak leaf in a box, a string and a var")
    func severalCaptures() {
        let holder = ClosureHolder()
        let leaf = Leaf()
        holder.captureSeveral(leaf)
        defer { holder.action = nil }
        let walked = Walked([holder], known: [leaf])
        #expect(walked.closure(of: holder, property: "action", reaches: holder, .strong))
        #expect(walked.closure(of: holder, property: "action", reaches: leaf, .weak))
        #expect(!walked.closure(of: holder, property: "action", reaches: leaf, .strong))
        #expect(walked.diagnostics(.undecodableClosure).isEmpty)
    }

    @Test("closures stored in an array are read through their reabstraction thunks")
    func closureInArray() {
        let holder = ClosureHolder()
        let leaf = Leaf()
        holder.storeInArray(leaf)
        let walked = Walked([holder], known: [leaf])
        // The element is a thunk's context wrapping the closure: looked through, the element
        // captures the leaf (the closure's only capture).
        #expect(walked.reaches(holder, leaf, through: "handlers", .strong))
        let storage = try? #require(walked.reference(from: holder, named: "handlers")?.to)
        #expect(
            storage.map { walked.result.references(from: $0).map(\.role) } == [
                .element(collection: "[() -> ()]", path: "")
            ])
    }

    @Test("a closure capturing another closure reaches the inner closure's captures")
    func closureCapturingClosure() {
        let holder = ClosureHolder()
        let leaf = Leaf()
        holder.captureClosure(leaf)
        let walked = Walked([holder], known: [leaf])
        #expect(walked.closure(of: holder, property: "action", reaches: leaf, .strong))
    }

    @Test("a generic closure capturing a bare generic value resolves it from its bindings")
    func genericValueCapture() {
        let holder = ClosureHolder()
        let value = Leaf("value")
        let leaf = Leaf()
        holder.captureGenericValue(value, leaf)
        let walked = Walked([holder], known: [value, leaf])
        #expect(walked.closure(of: holder, property: "action", reaches: value, .strong))
        #expect(walked.closure(of: holder, property: "action", reaches: leaf, .strong))
    }

    @Test("a capture whose type depends on a generic parameter is reported, never misread")
    func dependentGenericCapture() {
        let holder = ClosureHolder()
        let leaf = Leaf()
        let element = Leaf("element")
        holder.captureGeneric([element], leaf)
        let walked = Walked([holder], known: [leaf, element])
        let inside = walked.referencesInsideClosure(of: holder, property: "action")
        // Whatever was read must be right: the captures are the leaf and the array, decoded
        // from the context's own generic bindings, and the array's storage holds the element.
        let targets = Set(inside.map(\.to))
        #expect(
            targets.isSubset(
                of: Set(
                    [walked.id(leaf), walked.id(element)]
                        + inside.map(\.to)
                        .filter { walked.node($0)?.isContainer ?? false })))
        #expect(
            !walked.diagnostics(.undecodableClosure).isEmpty
                || (walked.closure(of: holder, property: "action", reaches: leaf, .strong)
                    && walked.closure(of: holder, property: "action", reaches: element, .strong)),
            "\(walked)")
    }
}
