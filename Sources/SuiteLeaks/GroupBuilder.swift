import Foundation
import HeapCensus
import LeakTracking
import ObjectGraph
import RetainGraph

/// Sorts leaked cycles into groups of one shape, and makes each group's sample, creation sites
/// and report.
struct GroupBuilder {
    let heap: HeapSnapshot
    /// The objects no root holds, as a graph of their own (``CycleAnalysis/Unheld``).
    let unheld: CycleAnalysis.Unheld
    let components: CompactGraph.Components
    /// Patterns of accepted leaks (see ``CycleAnalysis/accepted``).
    let accepted: [TypePattern]
    private var order: [String] = []
    private var pending: [String: Pending] = [:]

    /// A group being gathered: its first cycle's steps, and every cycle and site so far.
    private struct Pending {
        var steps: [CompactGraph.Step]
        var cycles: [CycleGroup.Cycle] = []
        var sites: [SiteKey: Int] = [:]
    }

    private struct SiteKey: Hashable {
        let typeName: String
        let site: CreationSite
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
        // The shortest cycle through the member whose type name sorts first: the whole cycle
        // for a simple one, the same shape whichever member a search starts from.
        let names = members.map { graph.typeName(of: $0) }
        guard let first = names.indices.min(by: { names[$0] < names[$1] }),
            let localSteps = unheld.graph.cycle(
                through: localMembers[first], components: components)
        else { return }
        // The cycle's steps in the heap's graph: nodes and edges (an edge's tag is its heap
        // edge).
        let steps = localSteps.map { step in
            CompactGraph.Step(
                from: unheld.nodes[Int(step.from)],
                edge: unheld.graph.tag(ofEdge: step.edge),
                to: unheld.nodes[Int(step.to)])
        }
        // The shape, whatever its rotation: its references as holder type, ownership and role.
        let key = steps.map { step in
            "\(graph.typeName(of: step.from))\u{1}\(graph.ownership(ofEdge: step.edge))\u{1}"
                + graph.role(ofEdge: step.edge).description
        }.sorted().joined(separator: "\u{2}")
        if pending[key] == nil {
            order.append(key)
            pending[key] = Pending(steps: steps)
        }
        let addresses = members.map { graph.address(of: $0) ?? 0 }
        pending[key]?.cycles.append(
            CycleGroup.Cycle(
                addresses: addresses.sorted(), bytes: members.reduce(0) { $0 + graph.size(of: $1) },
                retainedBytes: retainedBytes))
        for (member, address) in zip(members, addresses) {
            guard let site = HeapCensus.creationSite(ofObjectAt: address) else { continue }
            pending[key]?.sites[
                SiteKey(typeName: graph.typeName(of: member), site: site), default: 0] +=
                1
        }
    }

    /// The groups, by retained bytes, then cycles, largest first.
    func groups() -> [CycleGroup] {
        let now = Date().timeIntervalSince1970
        let groups = order.compactMap { pending[$0] }.map { group($0, reportedAt: now) }
        return groups.sorted {
            ($0.retainedBytes, $0.cycleCount, $1.fingerprint)
                > ($1.retainedBytes, $1.cycleCount, $0.fingerprint)
        }
    }

    /// A finished group: its sample in canonical rotation, and its report.
    private func group(_ pending: Pending, reportedAt: Double) -> CycleGroup {
        let graph = heap.graph
        // The sample as a small graph of its own: the report is built from it, and its
        // `cycle(through:)` gives the canonical rotation.
        var builder = GraphSnapshot.Builder(
            expectedNodes: pending.steps.count, expectedReferences: pending.steps.count)
        var ids: [CompactGraph.NodeID: ObjectID] = [:]
        for step in pending.steps where ids[step.from] == nil {
            let id = ObjectID(rawValue: UInt64(ids.count + 1))
            ids[step.from] = id
            let address = graph.address(of: step.from) ?? 0
            builder.addNode(
                id: id, typeName: graph.typeName(of: step.from),
                kind: Self.kind(of: step.from, graph),
                address: address, size: graph.size(of: step.from),
                creationTrace: HeapCensus.creationSite(ofObjectAt: address)?.trace)
        }
        for step in pending.steps {
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
                creationSite: HeapCensus.creationSite(ofObjectAt: address))
        }
        // The report's cycle is the sample's, in the same rotation: its holders are the steps'.
        let objectIDs = (report.cycle ?? []).map(\.from)
        if !accepted.contains(where: { $0.matches(report) }) {
            report.creationTraces = Self.creationTraces(of: steps, objects: objectIDs)
        }
        let sites = pending.sites.map {
            CycleGroup.Site(typeName: $0.key.typeName, site: $0.key.site, count: $0.value)
        }
        .sorted { ($0.count, $1.typeName) > ($1.count, $0.typeName) }
        return CycleGroup(
            fingerprint: report.fingerprint, sample: steps, sites: sites,
            report: CycleGroup.counted(report, cycles: pending.cycles), cycles: pending.cycles)
    }

    /// The graph's node kind as the live graph names it.
    private static func kind(of node: CompactGraph.NodeID, _ graph: CompactGraph) -> NodeKind {
        switch graph.kind(of: node) {
        case .closure: return .closure
        case .timer: return .timer
        default: return .object
        }
    }

    /// Each sample object's creation site, as a trace of the report (`objects`: the report's
    /// identities of the steps' holders): the frame of the user's code first (what annotations
    /// point at), then the site's other frames.
    private static func creationTraces(of steps: [CycleGroup.Step], objects: [String])
        -> [CreationTrace]
    {
        zip(steps, objects).compactMap { step, object in
            guard let site = step.creationSite else { return nil }
            var frames = site.frames()
            if let user = site.userFrame(), let index = frames.firstIndex(of: user) {
                frames.remove(at: index)
                frames.insert(user, at: 0)
            }
            let lines = frames.map(\.description)
            return lines.isEmpty ? nil : CreationTrace(object: object, frames: lines)
        }
    }
}
