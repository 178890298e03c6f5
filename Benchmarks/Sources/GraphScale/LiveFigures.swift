import RetainGraph

/// A live graph of real objects: what a leak check pays from the recorded graph to verdicts.
enum LiveFigures {
    final class Payload {}

    /// A live graph of `count` objects with two strong references each to random objects and
    /// 16 roots each holding one of them; the objects stay alive while the array does.
    static func randomLiveGraph(count: Int) -> (LiveGraph, [Payload]) {
        let graph = LiveGraph()
        let objects = (0..<count).map { _ in Payload() }
        let ids = objects.map { graph.register($0) }
        addRandomReferences(to: graph, among: ids)
        return (graph, objects)
    }

    /// Two references from each of `ids` to random ones (one in ten weak), and 16 roots each
    /// holding a random one: the same graph for the same identities, every time.
    static func addRandomReferences(to graph: LiveGraph, among ids: [ObjectID]) {
        let count = UInt64(ids.count)
        var random = SplitMix64(state: 7)
        for id in ids {
            for slot in 0..<2 {
                graph.addReference(
                    from: id, to: ids[Int(random.next() % count)],
                    ownership: slot == 1 && random.next() % 5 == 0 ? .weak : .strong,
                    role: .storedProperty(name: slot == 0 ? "first" : "second"))
            }
        }
        for root in 0..<16 {
            let rootID = graph.registerRoot(.custom(name: "root \(root)"))
            graph.addReference(
                from: rootID, to: ids[Int(random.next() % count)], ownership: .strong,
                role: .registryEntry(name: "root"))
        }
    }

    /// Memory per node and per edge of the live graph, snapshot cost, end-to-end detection.
    static func run(count: Int) {
        let objectsBefore = Machine.residentBytes()
        let objects = (0..<count).map { _ in Payload() }
        let objectBytes = Machine.residentBytes() - objectsBefore
        let graph = LiveGraph()
        // The benchmark's own array of identities, allocated and touched before measuring.
        var ids = [ObjectID](repeating: .disabled, count: count)
        let nodesBefore = Machine.residentBytes()
        measure("register \(count) objects (not a figure)") {
            for index in objects.indices { ids[index] = graph.register(objects[index]) }
        }
        let nodeBytes = Machine.residentBytes() - nodesBefore
        let edgesBefore = Machine.residentBytes()
        measure("record \(2 * count) references (not a figure)") {
            addRandomReferences(to: graph, among: ids)
        }
        let edgeBytes = Machine.residentBytes() - edgesBefore
        print(
            "FIGURE live graph memory: \(formatted(Double(nodeBytes) / Double(count))) B/node, "
                + "\(formatted(Double(edgeBytes) / Double(2 * count))) B/edge "
                + "(resident deltas; the objects themselves: "
                + "\(formatted(Double(objectBytes) / Double(count))) B each, not counted)")
        // Warm once (type names cached, journal drained), then measure.
        _ = graph.snapshot()
        measureMedian("FIGURE snapshot of a live graph", times: 3) { _ = graph.snapshot() }
        let snapshot = graph.snapshot()
        measure("FIGURE analysis alone (SCC + root paths)") {
            (snapshot.stronglyConnectedComponents().count, snapshot.shortestRootPaths())
        }
        measureMedian("FIGURE detection end to end (snapshot + SCC + root paths)", times: 3) {
            _ = graph.snapshot().analyze()
        }
        let analysis = graph.snapshot().analyze()
        let leaked = ids[count / 2]
        measure("explain one object (retention: root path + cycle)") {
            analysis.retention(of: leaked)
        }
        withExtendedLifetime(objects) {}
    }

    /// End to end only, for the peak-RSS figure (run alone: peak RSS is per process).
    static func runEndToEnd(count: Int) {
        let (graph, objects) = randomLiveGraph(count: count)
        let megabyte = 1_048_576
        print(
            "resident with the objects and the live graph: "
                + "\(Machine.residentBytes() / megabyte) MB (not a figure)")
        _ = graph.snapshot()  // names cached, journal drained
        print(
            "peak RSS after one snapshot, before any analysis: "
                + "\(Machine.peakResidentBytes() / megabyte) MB (not a figure)")
        let times = count >= 1_000_000 ? 3 : 21
        measureMedian(
            "FIGURE detection end to end (snapshot + SCC + root paths), \(count) nodes",
            times: times
        ) { _ = graph.snapshot().analyze() }
        withExtendedLifetime(objects) {}
    }

    /// The parts of a detection from a live graph, each the median of `times` runs taken in
    /// turn (snapshot, components, root paths, both on two threads, the whole), so a change in
    /// the machine's speed during the run touches every part alike.
    static func runParts(count: Int, times: Int = 9) {
        let (graph, objects) = randomLiveGraph(count: count)
        _ = graph.snapshot()  // names cached, journal drained
        let labels = [
            "snapshot", "components alone", "root paths alone",
            "components + root paths, one after the other",
            "components + root paths on two threads",
            "detection end to end (snapshot + analyze())",
        ]
        var samples = [[Double]](repeating: [], count: labels.count)
        let clock = ContinuousClock()
        func milliseconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1e3
                + Double(duration.components.attoseconds) / 1e15
        }
        for _ in 0..<times {
            var snapshot: GraphSnapshot?
            samples[0].append(milliseconds(clock.measure { snapshot = graph.snapshot() }))
            guard let compact = snapshot?.graph else { return }
            samples[1].append(milliseconds(clock.measure { _ = compact.strongComponents() }))
            samples[2].append(milliseconds(clock.measure { _ = compact.paths() }))
            samples[3].append(
                milliseconds(clock.measure { _ = (compact.strongComponents(), compact.paths()) }))
            samples[4].append(
                milliseconds(clock.measure { _ = compact.componentsAndPathsConcurrently() }))
            snapshot = nil
            samples[5].append(milliseconds(clock.measure { _ = graph.snapshot().analyze() }))
        }
        for (label, values) in zip(labels, samples) {
            let sorted = values.sorted()
            print(
                "\(Machine.loadAverage().split(separator: "(")[0])| PART \(label): "
                    + "\(formatted(sorted[sorted.count / 2])) ms (median of \(sorted.count); "
                    + "min \(formatted(sorted[0])), max \(formatted(sorted[sorted.count - 1])))")
        }
        withExtendedLifetime(objects) {}
    }
}
