import RetainGraph

/// The GraphSnapshot path (what the detector analyses), on the same random graph.
enum SnapshotFigures {
    /// `count` objects of 16 types with two references each (one in five weak) and 16 roots
    /// each holding one random object: the generator of the `GraphDetection` benchmarks.
    static func randomSnapshot(count: Int, roots: Int = 16) -> GraphSnapshot {
        var random = SplitMix64(state: UInt64(count))
        let typeNames = (0..<16).map { "Bench.Type\($0)" }
        var nodes = (0..<count).map {
            Node(id: ObjectID(rawValue: UInt64($0 + 1)), typeName: typeNames[$0 % 16])
        }
        var references: [Reference] = []
        references.reserveCapacity(2 * count + roots)
        for index in 0..<count {
            for slot in 0..<2 {
                references.append(
                    Reference(
                        from: ObjectID(rawValue: UInt64(index + 1)),
                        to: ObjectID(rawValue: random.next() % UInt64(count) + 1),
                        ownership: (2 * index + slot) % 5 == 4 ? .weak : .strong,
                        role: .storedProperty(name: slot == 0 ? "first" : "second")))
            }
        }
        for root in 0..<roots {
            let id = ObjectID(rawValue: UInt64(count + root + 1))
            nodes.append(
                Node(id: id, typeName: "RunLoop", kind: .root(.custom(name: "root \(root)"))))
            references.append(
                Reference(
                    from: id, to: ObjectID(rawValue: random.next() % UInt64(count) + 1),
                    ownership: .strong, role: .registryEntry(name: "root")))
        }
        return GraphSnapshot(nodes: nodes, references: references)
    }

    /// The analysis alone: components and root paths of a snapshot built beforehand.
    static func runAnalysis(count: Int) {
        let snapshot = measure("generate + index a GraphSnapshot (not a figure)") {
            randomSnapshot(count: count)
        }
        measure("GraphSnapshot SCC + root paths (analysis alone)") {
            (
                snapshot.stronglyConnectedComponents().count,
                snapshot.shortestRootPaths().isReachable(ObjectID(rawValue: 1))
            )
        }
    }
}
