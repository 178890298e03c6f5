import RetainGraph

/// A small, fast, seedable random number generator (SplitMix64), so synthetic graphs are the
/// same on every run.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Synthetic graphs of a given size.
public enum GraphFixtures {
    /// A random graph: `nodeCount` objects, each holding `edgesPerNode` random others (strong,
    /// except every fifth reference, which is weak), and `rootCount` roots holding random objects.
    ///
    /// - Returns: The nodes and references, unsorted.
    public static func randomGraph(
        nodeCount: Int, edgesPerNode: Int = 2, rootCount: Int = 8, seed: UInt64 = 42
    ) -> (nodes: [Node], references: [Reference]) {
        var random = SplitMix64(seed: seed)
        var nodes: [Node] = []
        nodes.reserveCapacity(nodeCount + rootCount)
        let typeNames = (0..<16).map { "Bench.Type\($0)" }
        for index in 0..<nodeCount {
            nodes.append(
                Node(id: ObjectID(rawValue: UInt64(index + 1)), typeName: typeNames[index % 16]))
        }
        var references: [Reference] = []
        references.reserveCapacity(nodeCount * edgesPerNode + rootCount)
        for index in 0..<nodeCount {
            for slot in 0..<edgesPerNode {
                let target = Int(random.next() % UInt64(nodeCount))
                references.append(
                    Reference(
                        from: ObjectID(rawValue: UInt64(index + 1)),
                        to: ObjectID(rawValue: UInt64(target + 1)),
                        ownership: (index * edgesPerNode + slot) % 5 == 4 ? .weak : .strong,
                        role: .storedProperty(name: slot == 0 ? "first" : "second")))
            }
        }
        for root in 0..<rootCount {
            let id = ObjectID(rawValue: UInt64(nodeCount + root + 1))
            nodes.append(
                Node(id: id, typeName: "RunLoop", kind: .root(.custom(name: "root\(root)"))))
            let target = Int(random.next() % UInt64(max(nodeCount, 1)))
            if nodeCount > 0 {
                references.append(
                    Reference(
                        from: id, to: ObjectID(rawValue: UInt64(target + 1)), ownership: .strong,
                        role: .registryEntry(name: "root\(root)")))
            }
        }
        return (nodes, references)
    }
}

/// Plain classes with distinct type names, for tests that record real objects in a
/// ``LiveGraph``.
public final class TestOwner: Sendable {
    /// A tag to tell instances apart in assertions.
    public let tag: Int
    /// Creates an owner.
    public init(tag: Int = 0) { self.tag = tag }
}

/// A second recordable class, for graphs of several types.
public final class TestHolder: Sendable {
    /// A tag to tell instances apart in assertions.
    public let tag: Int
    /// Creates a holder.
    public init(tag: Int = 0) { self.tag = tag }
}

/// A stand-in for a run loop or queue that a root node can be keyed by.
public final class TestRootObject: Sendable {
    /// Creates a root object.
    public init() {}
}
