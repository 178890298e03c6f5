import Foundation
import Locking
import ReferenceReflection
import RetainGraph
import Testing
import _TestSupport

/// A published graph piece: a node holding a peer weakly and unowned, a closure, a chain.
final class StressNode: @unchecked Sendable {
    let index: Int
    weak var weakPeer: Leaf?
    unowned let unownedPeer: Leaf
    var action: (() -> Void)?
    var leaves: [Leaf]
    var next: StressNode?

    init(index: Int, peer: Leaf, next: StressNode?) {
        self.index = index
        weakPeer = peer
        unownedPeer = peer
        leaves = [Leaf("a\(index)"), Leaf("b\(index)")]
        self.next = next
        let leaf = leaves[0]
        action = { [weak self] in
            _ = self?.index
            _ = leaf
        }
    }
}

/// Objects published by a producer thread and released there while walks run elsewhere.
private final class StressPool: @unchecked Sendable {
    let published = Locked<[StressNode]>([])
    let peers = Locked<[Leaf]>([])
    let stop = Locked(false)
}

@Suite("Reflection walk stress", .serialized)
struct ReflectionWalkStressTests {
    @Test("walks survive objects and their weak/unowned targets deallocating on another thread")
    func walksWhileObjectsDeallocateElsewhere() {
        let pool = StressPool()
        let producerDone = Locked(false)
        let walksWanted = 300
        let producer = Thread {
            var previous: StressNode?
            var index = 0
            // Keeps publishing and dropping until the walker has done its walks (or 100 000
            // rounds), so walks always overlap deallocations.
            while !pool.stop.withLock({ $0 }) && index < 100_000 {
                let peer = Leaf("peer \(index)")
                let node = StressNode(
                    index: index, peer: peer, next: index % 3 == 0 ? nil : previous)
                previous = index % 4 == 0 ? nil : node
                pool.peers.withLock { peers in
                    peers.append(peer)
                    // Peers die here while nodes that point at them may be being walked.
                    if peers.count > 2 { peers.removeFirst() }
                }
                pool.published.withLock { nodes in
                    nodes.append(node)
                    // The last strong reference to old nodes goes away on this thread.
                    if nodes.count > 4 { nodes.removeFirst() }
                }
                index += 1
            }
            previous = nil
            pool.published.withLock { $0.removeAll() }
            pool.peers.withLock { $0.removeAll() }
            producerDone.withLock { $0 = true }
        }
        producer.start()

        let walker = ReferenceWalker(graph: nil, limits: WalkLimits(maxObjects: 200))
        var walks = 0
        var references = 0
        var allDiscovered = true
        while walks < walksWanted, !producerDone.withLock({ $0 }) {
            // Strong references taken under the lock: the walk's roots cannot die under it.
            let roots: [AnyObject] = pool.published.withLock { $0 }
            guard !roots.isEmpty else { continue }
            let result = walker.walk(from: roots)
            walks += 1
            references += result.references.count
            allDiscovered = allDiscovered && result.references.allSatisfy { $0.isDiscovered }
        }
        pool.stop.withLock { $0 = true }
        #expect(waitUntil(timeout: 60) { producerDone.withLock { $0 } })
        #expect(walks == walksWanted)
        #expect(references >= walks)  // every published node holds at least its leaves
        #expect(allDiscovered)
    }

    @Test("a walk keeps nothing alive after it returns (Stress)")
    func walkReleasesEverything() {
        weak var weakNode: StressNode?
        weak var weakLeaf: Leaf?
        do {
            let peer = Leaf("peer")
            let node = StressNode(
                index: 0, peer: peer, next: StressNode(index: 1, peer: peer, next: nil))
            weakNode = node
            weakLeaf = node.leaves[0]
            let result = ReferenceWalker(graph: nil).walk(from: [node])
            #expect(result.objectsRead >= 3)
        }
        #expect(weakNode == nil)
        #expect(weakLeaf == nil)
    }
}
