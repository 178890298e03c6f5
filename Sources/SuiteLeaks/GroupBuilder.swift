import Foundation
import HeapCensus
import LeakTracking
import ObjectGraph
import RetainGraph
import RetainGraphUtilities
import StackTraces

/// Splits groups of leaked cycles of one shape (HeapGraph's
/// ``/HeapGraph/UnreachableCycles/Group``) by the lines that made them, and makes each group's
/// sample, sites and report.
///
/// For the shapes no type pattern accepts, every creation stack is symbolicated in one batch
/// (``SiteLocator/prepare(_:)``) and each shape is split by where its objects were made
/// (``SiteLocator/madeAt(_:excluding:)``).
struct GroupBuilder {
    let heap: HeapSnapshot
    /// Patterns of accepted leaks (see ``CycleAnalysis/accepted``).
    let accepted: [TypePattern]
    /// The cycles' objects' type names, by node (closure contexts named by their captures).
    private var names: [CompactGraph.NodeID: String] = [:]

    /// One leaked cycle: its shortest loop in the heap's graph, its figures and objects.
    private struct Found {
        var steps: [CompactGraph.Step]
        var cycle: CycleGroup.Cycle
    }

    init(heap: HeapSnapshot, accepted: [TypePattern]) {
        self.heap = heap
        self.accepted = accepted
    }

    /// The groups, by retained bytes, then cycles, largest first.
    ///
    /// - Parameter shapes: The heap's unreachable cycles, grouped by shape.
    mutating func groups(of shapes: [UnreachableCycles.Group]) -> [CycleGroup] {
        let now = Date().timeIntervalSince1970
        let gathered = shapes.map { shape in
            shape.cycles.map { cycle in
                for (object, name) in zip(cycle.objects, cycle.typeNames) {
                    names[CompactGraph.NodeID(object.rawValue)] = name
                }
                return Found(
                    steps: cycle.loop,
                    cycle: CycleGroup.Cycle(
                        addresses: cycle.addresses, bytes: cycle.bytes,
                        retainedBytes: cycle.retainedBytes,
                        members: zip(cycle.addresses, cycle.typeNames).map {
                            CycleGroup.Member(
                                typeName: $1, site: HeapCensus.creationSite(ofObjectAt: $0),
                                madeAt: nil)
                        }))
            }
        }
        let isAccepted = gathered.map { found in
            found[0].steps.contains { step in
                let name = name(of: step.from)
                return accepted.contains { $0.matches(name) }
            }
        }
        // One batch for every stack a group will name: one symbolizer run per image.
        SiteLocator.prepare(
            zip(gathered, isAccepted).filter { !$0.1 }.flatMap { found, _ in
                found.flatMap { $0.cycle.members.compactMap(\.site) }
            })
        var locator = SiteLocator()
        var groups: [CycleGroup] = []
        for (shape, (found, accepted)) in zip(shapes, zip(gathered, isAccepted)) {
            if accepted {
                groups.append(group(found, types: shape.types, locating: false, reportedAt: now))
                continue
            }
            let modules = SiteLocator.modules(ofTypes: Set(shape.types).sorted())
            var places: [String] = []
            var byPlace: [String: [Found]] = [:]
            for var one in found {
                for index in one.cycle.members.indices {
                    one.cycle.members[index].madeAt = one.cycle.members[index].site.flatMap {
                        locator.madeAt($0, excluding: modules)
                    }
                }
                let place = Set(one.cycle.members.map { Self.place(of: $0.madeAt) }).sorted()
                    .joined(separator: ",")
                if byPlace[place] == nil { places.append(place) }
                byPlace[place, default: []].append(one)
            }
            for place in places {
                guard let cycles = byPlace[place] else { continue }
                groups.append(group(cycles, types: shape.types, locating: true, reportedAt: now))
            }
        }
        return groups.sorted {
            ($0.retainedBytes, $0.cycleCount, $1.fingerprint, $1.sites.first?.location ?? "")
                > ($1.retainedBytes, $1.cycleCount, $0.fingerprint, $0.sites.first?.location ?? "")
        }
    }

    /// A "made at" as a key: its file and line.
    private static func place(of frame: StackFrame?) -> String {
        guard let frame else { return "?" }
        return "\(frame.file ?? frame.function ?? "?"):\(frame.line ?? 0)"
    }

    /// A cycle member's type name, as the shapes named it.
    private func name(of node: CompactGraph.NodeID) -> String {
        names[node] ?? heap.graph.typeName(of: node)
    }

    /// A finished group: its sample in canonical rotation, its report and its fingerprint.
    private func group(
        _ found: [Found], types: [String], locating: Bool, reportedAt: Double
    ) -> CycleGroup {
        let graph = heap.graph
        let first = found[0]
        let members = Dictionary(
            zip(first.cycle.addresses, first.cycle.members).map { ($0, $1) },
            uniquingKeysWith: { first, _ in first })
        // The sample as a small graph of its own: the report is built from it, and its
        // `cycle(through:)` gives the canonical rotation. Its nodes carry no creation trace:
        // the report's builder would symbolicate each on its own (a few addresses at a time,
        // through the `Runtime` module, which reads the binary's DWARF again on every call:
        // 2.5 s of processor for an XCTest process's 36 allowed shapes); the traces are set
        // below, from the one batch.
        var builder = GraphSnapshot.Builder(
            expectedNodes: first.steps.count, expectedReferences: first.steps.count)
        var ids: [CompactGraph.NodeID: ObjectID] = [:]
        for step in first.steps where ids[step.from] == nil {
            let id = ObjectID(rawValue: UInt64(ids.count + 1))
            ids[step.from] = id
            let address = graph.address(of: step.from) ?? 0
            builder.addNode(
                id: id, typeName: name(of: step.from), kind: Self.kind(of: step.from, graph),
                address: address, size: graph.size(of: step.from), creationTrace: nil)
        }
        for step in first.steps {
            guard let from = ids[step.from], let to = ids[step.to] else { continue }
            builder.addReference(
                from: from, to: to, ownership: graph.ownership(ofEdge: step.edge),
                role: graph.role(ofEdge: step.edge), origin: .heap)
        }
        let sample = builder.build()
        let cycle = sample.cycle(through: ObjectID(rawValue: 1)) ?? []
        let subject = cycle.first?.from ?? ObjectID(rawValue: 1)
        var report = LeakReport.found(
            subject, in: sample,
            reason: "a strong reference cycle that nothing reaches, found when the process exited",
            reportedAt: reportedAt)
        let steps = cycle.map { reference -> CycleGroup.Step in
            let node = sample.node(reference.from)
            let address = node?.address ?? 0
            return CycleGroup.Step(
                typeName: node?.typeName ?? "?", address: address, size: node?.size ?? 0,
                ownership: reference.ownership, role: reference.role,
                creationSite: members[address]?.site, madeAt: members[address]?.madeAt)
        }
        if locating {
            // The report's cycle is the sample's, in the same rotation: its holders are the
            // steps'.
            let objectIDs = (report.cycle ?? []).map(\.from)
            report.creationTraces = zip(steps, objectIDs).compactMap { step, object in
                guard let site = step.creationSite else { return nil }
                return CreationTrace(
                    object: object, frames: site.frames().map(\.description),
                    file: step.madeAt?.file, line: step.madeAt?.line)
            }
            report.fingerprint = Self.fingerprint(report.fingerprint, madeAt: found)
            report.creationSites = []
        }
        let cycles = found.map(\.cycle)
        return CycleGroup(
            fingerprint: report.fingerprint, sample: steps, types: types,
            report: CycleGroup.counted(report, cycles: cycles), cycles: cycles)
    }

    /// The shape's fingerprint and where the group was made, by file and function (not line:
    /// the same leak keeps its fingerprint when code moves within its function).
    private static func fingerprint(_ shape: String, madeAt found: [Found]) -> String {
        var places = Set<String>()
        for one in found {
            for member in one.cycle.members {
                guard let frame = member.madeAt else { continue }
                let file = frame.file?.split(separator: "/").last.map(String.init) ?? ""
                places.insert("\(file)|\(frame.function ?? "?")")
            }
        }
        guard !places.isEmpty else { return shape }
        return LeakFingerprint.hashing(
            "\(shape)|made at:" + places.sorted().joined(separator: ",")
        ).rawValue
    }

    /// The graph's node kind as the live graph names it.
    private static func kind(of node: CompactGraph.NodeID, _ graph: CompactGraph) -> NodeKind {
        switch graph.kind(of: node) {
        case .closure: return .closure
        case .timer: return .timer
        default: return .object
        }
    }
}
