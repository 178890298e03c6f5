// What recording and analysing the retain graph costs.
//
// - Edge insert / remove: one `LiveGraph.addReference` or `removeReference` between two live
//   nodes, 1,000 per iteration (`scalingFactor: .kilo`); the `*` columns are per operation.
// - Snapshot: `LiveGraph.snapshot()` of a live graph of real objects, 2 references each.
// - SCC + root paths: `stronglyConnectedComponents()` and `shortestRootPaths()` on a random
//   graph of N nodes, 2 references per node (one in five weak), 16 roots.
// - Memory per edge: resident bytes (`/proc/self/statm`) added by recording 1M references,
//   reported as a custom metric. (glibc's `mallinfo2` is not exported by Swift's Glibc module;
//   the slab is one array, which glibc maps with `mmap`, so the resident delta is its size.)
//
// Metrics: wall clock and malloc count (the ARC metrics crash on Linux with Swift 6.3).
import Benchmark
import RetainGraph

#if canImport(Glibc)
import Glibc
#endif

/// A fixed-seed SplitMix64 generator, so every run analyses the same graphs.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A random graph of `count` objects with two references each and `roots` roots.
func randomSnapshot(count: Int, roots: Int = 16) -> GraphSnapshot {
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
        nodes.append(Node(id: id, typeName: "RunLoop", kind: .root(.custom(name: "root \(root)"))))
        references.append(
            Reference(
                from: id, to: ObjectID(rawValue: random.next() % UInt64(count) + 1),
                ownership: .strong,
                role: .registryEntry(name: "root")))
    }
    return GraphSnapshot(nodes: nodes, references: references)
}

final class Payload {}

/// A live graph of `count` real objects (kept alive by the returned array), 2 references each.
func liveGraph(count: Int) -> (LiveGraph, [Payload]) {
    let graph = LiveGraph()
    let objects = (0..<count).map { _ in Payload() }
    let ids = objects.map { graph.register($0) }
    var random = SplitMix64(state: 7)
    for id in ids {
        for slot in 0..<2 {
            graph.addReference(
                from: id, to: ids[Int(random.next() % UInt64(count))], ownership: .strong,
                role: .storedProperty(name: slot == 0 ? "first" : "second"))
        }
    }
    return (graph, objects)
}

func residentBytes() -> Int {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var size = 0
    var resident = 0
    guard readStatm(file, &size, &resident) else { return 0 }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Reads the first two numbers of `/proc/self/statm`.
func readStatm(_ file: UnsafeMutablePointer<FILE>, _ size: inout Int, _ resident: inout Int)
    -> Bool
{
    var buffer = [CChar](repeating: 0, count: 256)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return false }
    let fields = String(
        decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self
    )
    .split(separator: " ")
    guard fields.count >= 2, let first = Int(fields[0]), let second = Int(fields[1]) else {
        return false
    }
    size = first
    resident = second
    return true
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 3,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )
    let perOperation = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds, warmupIterations: 10,
        scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 2_000)

    Benchmark("Edge insert (addReference)", configuration: perOperation) { benchmark in
        let graph = LiveGraph()
        let a = graph.registerRoot(.custom(name: "a"))
        let b = graph.registerRoot(.custom(name: "b"))
        var ids: [ReferenceID] = []
        ids.reserveCapacity(benchmark.scaledIterations.count)
        // Warm the slab, so inserts reuse free slots as in a running program.
        for _ in benchmark.scaledIterations {
            if let id = graph.addReference(from: a, to: b, ownership: .strong, role: .target) {
                ids.append(id)
            }
        }
        for id in ids { graph.removeReference(id) }
        ids.removeAll(keepingCapacity: true)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            if let id = graph.addReference(from: a, to: b, ownership: .strong, role: .target) {
                ids.append(id)
            }
        }
        benchmark.stopMeasurement()
        blackHole(ids)
    }

    Benchmark("Edge remove (removeReference)", configuration: perOperation) { benchmark in
        let graph = LiveGraph()
        let a = graph.registerRoot(.custom(name: "a"))
        let b = graph.registerRoot(.custom(name: "b"))
        var ids: [ReferenceID] = []
        ids.reserveCapacity(benchmark.scaledIterations.count)
        for _ in benchmark.scaledIterations {
            if let id = graph.addReference(from: a, to: b, ownership: .strong, role: .target) {
                ids.append(id)
            }
        }
        // Removing pushes slots on the free list; give it room first, as a running graph has.
        for id in ids { graph.removeReference(id) }
        ids.removeAll(keepingCapacity: true)
        for _ in benchmark.scaledIterations {
            if let id = graph.addReference(from: a, to: b, ownership: .strong, role: .target) {
                ids.append(id)
            }
        }
        benchmark.startMeasurement()
        for id in ids { graph.removeReference(id) }
        benchmark.stopMeasurement()
    }

    for count in [10_000, 100_000, 1_000_000] {
        let label = count >= 1_000_000 ? "\(count / 1_000_000)M" : "\(count / 1_000)k"
        Benchmark("Snapshot of a live graph, \(label) objects") { benchmark in
            let (graph, objects) = liveGraph(count: count)
            benchmark.startMeasurement()
            let snapshot = graph.snapshot()
            benchmark.stopMeasurement()
            blackHole(snapshot.references.count)
            withExtendedLifetime(objects) {}
        }

        Benchmark("SCC + root paths, random \(label) nodes") { benchmark in
            let snapshot = randomSnapshot(count: count)
            benchmark.startMeasurement()
            let components = snapshot.stronglyConnectedComponents()
            let paths = snapshot.shortestRootPaths()
            benchmark.stopMeasurement()
            blackHole(components.count)
            blackHole(paths.isReachable(ObjectID(rawValue: 1)))
        }
    }

    let memory = Benchmark.Configuration(
        metrics: [.wallClock, .custom("resident bytes per edge", useScalingFactor: false)],
        timeUnits: .milliseconds, warmupIterations: 0, maxDuration: .seconds(10), maxIterations: 3)
    Benchmark("Memory per recorded edge, 1M edges", configuration: memory) { benchmark in
        let edges = 1_000_000
        let graph = LiveGraph()
        let a = graph.registerRoot(.custom(name: "a"))
        let b = graph.registerRoot(.custom(name: "b"))
        let residentBefore = residentBytes()
        for _ in 0..<edges {
            graph.addReference(
                from: a, to: b, ownership: .strong, role: .storedProperty(name: "cache"))
        }
        benchmark.measurement(
            .custom("resident bytes per edge", useScalingFactor: false),
            (residentBytes() - residentBefore) / edges)
        blackHole(graph.counts())
    }
}
