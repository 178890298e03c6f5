import Foundation
import HeapCensus
import LeakTracking
import ObjectGraph
import RetainGraph
import RetainGraphUtilities
import StackTraces

/// Sorts leaked cycles into groups (one shape, made at the same lines) and makes each group's
/// sample, sites and report.
///
/// Cycles are first gathered by shape: the references of their shortest loop (holder type,
/// ownership, role) and every type of the cycle. Then, for the shapes no type pattern accepts,
/// every creation stack is symbolicated in one batch (``SiteLocator/prepare(_:)``) and each
/// shape is split by where its objects were made (``SiteLocator/madeAt(_:excluding:)``).
struct GroupBuilder {
    let heap: HeapSnapshot
    /// The objects no root holds, as a graph of their own (``CycleAnalysis/Unheld``).
    let unheld: CycleAnalysis.Unheld
    let components: CompactGraph.Components
    /// Patterns of accepted leaks (see ``CycleAnalysis/accepted``).
    let accepted: [TypePattern]
    private var order: [String] = []
    private var shapes: [String: [Found]] = [:]
    /// Names of anonymous closure contexts, by node (see ``name(of:within:)``).
    private var contextNames: [CompactGraph.NodeID: String] = [:]

    /// One leaked cycle: its shortest loop in the heap's graph, its figures and objects.
    private struct Found {
        var steps: [CompactGraph.Step]
        var cycle: CycleGroup.Cycle
        /// Every type of the cycle, each once, by name.
        var types: [String]
    }

    init(
        heap: HeapSnapshot, unheld: CycleAnalysis.Unheld, components: CompactGraph.Components,
        accepted: [TypePattern]
    ) {
        self.heap = heap
        self.unheld = unheld
        self.components = components
        self.accepted = accepted
    }

    /// Adds one leaked cycle (a component's members, as nodes of the unheld objects' graph).
    mutating func add(_ localMembers: [CompactGraph.NodeID], retainedBytes: UInt64) {
        let graph = heap.graph
        let members = localMembers.map { unheld.nodes[Int($0)] }
        let memberSet = Set(members)
        let names = members.map { name(of: $0, within: memberSet) }
        // The shortest cycle through the member whose type name sorts first: the whole cycle
        // for a simple one, the same shape whichever member a search starts from.
        guard let first = names.indices.min(by: { names[$0] < names[$1] }),
            let localSteps = unheld.graph.cycle(
                through: localMembers[first], components: components)
        else { return }
        // The cycle's steps in the heap's graph (an edge's tag is its heap edge).
        let steps = localSteps.map { step in
            CompactGraph.Step(
                from: unheld.nodes[Int(step.from)],
                edge: unheld.graph.tag(ofEdge: step.edge),
                to: unheld.nodes[Int(step.to)])
        }
        let types = Set(names).sorted()
        // The shape, whatever its rotation: its references as holder type, ownership and role,
        // and every type of the cycle.
        let key =
            steps.map { step in
                "\(name(of: step.from, within: memberSet))\u{1}\(graph.ownership(ofEdge: step.edge))\u{1}"
                    + graph.role(ofEdge: step.edge).description
            }.sorted().joined(separator: "\u{2}") + "\u{3}" + types.joined(separator: "\u{2}")
        let objects = zip(members, names).map { node, name in
            (address: graph.address(of: node) ?? 0, name: name, size: graph.size(of: node))
        }.sorted { $0.address < $1.address }
        let cycle = CycleGroup.Cycle(
            addresses: objects.map(\.address), bytes: objects.reduce(0) { $0 + $1.size },
            retainedBytes: retainedBytes,
            members: objects.map {
                CycleGroup.Member(
                    typeName: $0.name, site: HeapCensus.creationSite(ofObjectAt: $0.address),
                    madeAt: nil)
            })
        if shapes[key] == nil { order.append(key) }
        shapes[key, default: []].append(Found(steps: steps, cycle: cycle, types: types))
    }

    /// The groups, by retained bytes, then cycles, largest first.
    mutating func groups() -> [CycleGroup] {
        let now = Date().timeIntervalSince1970
        let gathered = order.compactMap { shapes[$0] }.filter { !$0.isEmpty }
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
        for (found, accepted) in zip(gathered, isAccepted) {
            if accepted {
                groups.append(group(found, locating: false, reportedAt: now))
                continue
            }
            let modules = SiteLocator.modules(ofTypes: found[0].types)
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
                groups.append(group(cycles, locating: true, reportedAt: now))
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

    /// A node's type name; for a closure context whose captures the layout could not name,
    /// `closure context (captures A, B)` after the types it holds in its cycle (`cycle`, its
    /// members; a context's undecoded words can also point at unrelated objects, stale copies
    /// read conservatively).
    private mutating func name(
        of node: CompactGraph.NodeID, within cycle: Set<CompactGraph.NodeID>? = nil
    ) -> String {
        let graph = heap.graph
        let typeName = graph.typeName(of: node)
        guard typeName == "closure context" else { return typeName }
        if let known = contextNames[node] { return known }
        var captured: [String] = []
        for edge in graph.strongOutEdges(of: node) {
            let target = graph.target(of: CompactGraph.EdgeID(edge))
            guard cycle?.contains(target) ?? true else { continue }
            let name = TypeNames.withoutModule(graph.typeName(of: target))
            if !captured.contains(name) { captured.append(name) }
        }
        let named =
            captured.isEmpty
            ? typeName : "closure context (captures \(captured.sorted().joined(separator: ", ")))"
        contextNames[node] = named
        return named
    }

    /// A finished group: its sample in canonical rotation, its report and its fingerprint.
    private mutating func group(_ found: [Found], locating: Bool, reportedAt: Double)
        -> CycleGroup
    {
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
        var types = steps.map(\.typeName).reduce(into: [String]()) { names, name in
            if !names.contains(name) { names.append(name) }
        }
        types += first.types.filter { !types.contains($0) }
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
