import ReferenceReflection
import RetainGraph
import Testing

@Suite("Closures stored in properties: contexts and captures")
struct ClosureCaptureWalkTests {
    @Test("a closure capturing self strongly: holder ⇒ closure ⇒ holder, a strong cycle")
    func strongSelf() {
        let holder = ClosureHolder()
        holder.captureStrongSelf()
        defer { holder.action = nil }
        let walked = Walked([holder])
        let stored = walked.reference(from: holder, named: "action")
        #expect(stored?.kind == .strong)
        #expect(walked.node(stored!.to)?.kind == .closure)
        let captures = walked.closureCaptures(of: holder, property: "action")
        #expect(captures.count == 1)
        #expect(captures.first?.to == walked.id(holder))
        #expect(captures.first?.kind == .strong)
        #expect(captures.first?.role == .capture(name: "ClosureHolder"))
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
        #expect(walked.closure(of: holder, property: "handlers[0]", reaches: leaf, .strong))
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
        // Whatever was read must be right: only the leaf can be a direct capture target.
        #expect(inside.allSatisfy { $0.to == walked.id(leaf) || $0.to == walked.id(element) })
        #expect(!walked.diagnostics(.undecodableClosure).isEmpty || inside.count == 2)
    }
}
