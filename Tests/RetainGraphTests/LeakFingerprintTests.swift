import RetainGraph
import Testing
import _TestSupport

@Suite("Leak fingerprints")
struct LeakFingerprintTests {
    /// Seed S1's shape: run loop ⇒ timer ⇒ owner ⇒ timer, plus a path into it.
    static func timerLeak(
        firstID: UInt64, idStep: UInt64, addressBase: UInt, ownerProperty: String = "timer"
    ) -> (snapshot: GraphSnapshot, owner: ObjectID, timer: ObjectID) {
        var graph = GraphBuilder(firstID: firstID, idStep: idStep, addressBase: addressBase)
        let runLoop = graph.root()
        let timer = graph.object("Foundation.Timer", kind: .timer)
        let owner = graph.object("App.Owner", label: "owner #\(firstID)")
        graph.strong(runLoop, timer, .scheduled(mode: "default"))
        graph.strong(timer, owner, .target)
        graph.strong(owner, timer, .storedProperty(name: ownerProperty))
        return (graph.snapshot, owner, timer)
    }

    static func fingerprint(_ snapshot: GraphSnapshot, _ leaked: ObjectID) -> LeakFingerprint {
        let retention = snapshot.analyze().retention(of: leaked)
        return snapshot.fingerprint(of: leaked, path: retention.rootPath, cycle: retention.cycle)
    }

    @Test("The same shape with other identities, addresses and labels has the same fingerprint")
    func ignoresIdentitiesAndAddresses() {
        let first = Self.timerLeak(firstID: 1, idStep: 1, addressBase: 0x1000)
        let second = Self.timerLeak(firstID: 900, idStep: 37, addressBase: 0x7fff_0000)
        #expect(first.owner != second.owner)
        #expect(
            Self.fingerprint(first.snapshot, first.owner)
                == Self.fingerprint(second.snapshot, second.owner))
    }

    @Test("A different role name or leaked type changes the fingerprint")
    func rolesAndTypesMatter() {
        let base = Self.timerLeak(firstID: 1, idStep: 1, addressBase: 0)
        let renamed = Self.timerLeak(firstID: 1, idStep: 1, addressBase: 0, ownerProperty: "clock")
        let baseFingerprint = Self.fingerprint(base.snapshot, base.owner)
        #expect(baseFingerprint != Self.fingerprint(renamed.snapshot, renamed.owner))
        #expect(baseFingerprint != Self.fingerprint(base.snapshot, base.timer))
        #expect(baseFingerprint.rawValue.count == 16)
        #expect(baseFingerprint.rawValue.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    }

    @Test("A cycle's fingerprint does not depend on where the cycle was entered")
    func cycleRotationDoesNotMatter() throws {
        var graph = GraphBuilder()
        let ids = graph.cycle(["App.A", "App.B", "App.C"])
        let snapshot = graph.snapshot
        let fromA = try #require(snapshot.cycle(through: ids[0]))
        let rotated = Array(fromA[1...] + fromA[..<1])
        #expect(
            snapshot.fingerprint(of: ids[0], path: nil, cycle: fromA)
                == snapshot.fingerprint(of: ids[0], path: nil, cycle: rotated))
    }

    @Test("Strong and weak references with the same role fingerprint differently")
    func kindMatters() {
        var strongGraph = GraphBuilder()
        var weakGraph = GraphBuilder()
        for index in 0..<2 {
            var graph = index == 0 ? strongGraph : weakGraph
            let root = graph.root()
            let leaked = graph.object("App.Leaked")
            graph.edge(root, leaked, ownership: index == 0 ? .strong : .weak, .target)
            if index == 0 { strongGraph = graph } else { weakGraph = graph }
        }
        let leaked = ObjectID(rawValue: 2)
        let path = strongGraph.snapshot.references
        #expect(
            strongGraph.snapshot.fingerprint(of: leaked, path: path, cycle: nil)
                != weakGraph.snapshot.fingerprint(
                    of: leaked, path: weakGraph.snapshot.references, cycle: nil))
    }
}
