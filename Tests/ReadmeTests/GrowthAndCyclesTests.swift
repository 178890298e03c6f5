// The two optional products of README.md's "Use it in your package", used the way the README
// says: `HeapGrowth.measure` over repeated work, and the leaked cycles SuiteLeaks finds.
import HeapGrowth
import SuiteLeaks
import Testing

/// Your code: a registry that keeps every session it ever opened.
final class OpenedSession: @unchecked Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

final class SessionRegistry: @unchecked Sendable {
    private var opened: [OpenedSession] = []
    func open(id: Int) -> OpenedSession {
        let session = OpenedSession(id: id)
        opened.append(session)  // never removed: every call leaks one session
        return session
    }
}

/// Your code: a peer and its link, each holding the other, never broken.
final class Peer {
    var link: PeerLink?
}

final class PeerLink {
    var peer: Peer?
}

@Test func repeatedWorkThatKeepsEverySessionGrowsBySession() throws {
    let registry = SessionRegistry()
    var next = 0
    let growth = try HeapGrowth.measure(repeating: 20) {
        next += 1
        _ = registry.open(id: next)
    }
    let grown = growth.grown.map(\.typeName)
    #expect(grown.contains { $0.hasSuffix("OpenedSession") }, "\(growth)")
}

@Test func aPairThatHoldsEachOtherIsALeakedCycle() {
    for _ in 0..<3 {
        let peer = Peer()
        let link = PeerLink()
        peer.link = link
        link.peer = peer
    }
    let cycles = LeakedCycles.check()
    let group = cycles.groups.first { group in
        group.types.contains { $0.hasSuffix("Peer") }
            && group.types.contains { $0.hasSuffix("PeerLink") }
    }
    #expect(group?.cycleCount == 3, "\(cycles.groups.map(\.types))")
}
