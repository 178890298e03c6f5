import Foundation
import RetainGraph

// THE ADAPTER: the only file of ProcessAttach that touches RetainGraph's `CompactGraph`. It
// builds the graph from the snapshot's columns and answers the few graph questions the rest of
// the module asks (who holds a node strongly, what a node holds, a strong cycle). When the
// graph's API changes (issue 22, "one graph"), this file is the one to port.

extension RemoteHeapSnapshot {
    /// Assembles a snapshot from its columns and builds its graph.
    init(
        processID: Int32, command: String, capturedAt: Date, stopDuration: Duration?,
        threads: [RemoteThread], limitations: [String], statistics: RemoteHeapStatistics,
        addresses: [UInt], typeOfObject: [Int32], types: [RemoteType], sizes: [UInt32],
        retainCounts: [UInt32], references: ReferenceColumns, labels: [String],
        holders: [HeldObject]
    ) {
        self.processID = processID
        self.command = command
        self.capturedAt = capturedAt
        self.stopDuration = stopDuration
        self.threads = threads
        self.limitations = limitations
        self.statistics = statistics
        self.addresses = addresses
        self.typeOfObject = typeOfObject
        self.types = types
        self.sizes = sizes
        self.retainCounts = retainCounts
        self.references = references
        self.labels = labels
        self.holders = holders
        var ranks = [UInt8](repeating: .max, count: addresses.count)
        for held in holders where Int(held.object) < ranks.count {
            ranks[Int(held.object)] = min(ranks[Int(held.object)], UInt8(held.holder.rank))
        }
        holderRanks = ranks
        addressTable = AddressTable(addresses)
        graph = Self.makeGraph(
            addresses: addresses, typeOfObject: typeOfObject, types: types,
            references: references, labels: labels, holders: holders)
    }

    /// Objects become nodes (numbered as the snapshot numbers them), references become edges
    /// found in the heap, and every held object a root named after its best holder.
    private static func makeGraph(
        addresses: [UInt], typeOfObject: [Int32], types: [RemoteType],
        references: ReferenceColumns, labels: [String], holders: [HeldObject]
    ) -> CompactGraph {
        var builder = CompactGraph.Builder()
        let typeNumbers = types.map { builder.intern($0.name) }
        let typeKinds = types.map { nodeKind($0) }
        builder.addNodes(
            kinds: typeOfObject.map { typeKinds[Int($0)] },
            typeNameNumbers: typeOfObject.map { typeNumbers[Int($0)] }, addresses: addresses)
        let labelNumbers = labels.map { builder.intern($0) }
        builder.addDiscoveredEdges(
            sources: references.sources, targets: references.targets,
            kinds: references.ownerships.map(edgeKind),
            labelNumbers: references.labels.map {
                Int($0) < labelNumbers.count && $0 >= 0 ? labelNumbers[Int($0)] : 0
            },
            foundInHeap: true)
        var last: Int32 = -1
        for held in holders where held.object != last {  // sorted: the best holder first
            builder.addRoot(UInt32(held.object), name: held.holder.description)
            last = held.object
        }
        return builder.build(numberingForLocality: false)
    }

    private static func nodeKind(_ type: RemoteType) -> CompactGraph.NodeKind {
        if type.isTimer { return .timer }
        switch RemoteLayout.Shape(rawValue: type.shape) {
        case .closureContext?, .block?: return .closure
        case .box?: return .box
        case .storage?: return .storage
        default: return .object
        }
    }

    private static func edgeKind(_ ownership: SlotOwnership) -> CompactGraph.EdgeKind {
        switch ownership {
        case .strong, .conservative: return .strong
        case .weak: return .weak
        case .unowned: return .unowned
        case .unownedUnsafe: return .unownedUnsafe
        }
    }

    /// How every label of a reference read without a layout ends.
    static let conservativeSuffix = "(read conservatively)"

    /// One step of a path: the holder, the referenced object, and the reference's label.
    struct GraphStep {
        var from: Int32
        var to: Int32
        var label: String
        var ownership: RemoteReference.Ownership
    }

    /// Calls `body` with each object that holds `object` strongly and the reference's edge.
    func forEachStrongHolder(of object: Int32, _ body: (_ holder: Int32, _ edge: UInt32) -> Void) {
        for step in graph.incoming(to: UInt32(object)) {
            guard graph.kind(ofEdge: step.edge) == .strong else { break }  // strong ones first
            body(Int32(step.from), step.edge)
        }
    }

    /// The step of reference `edge` from `from` to `to`.
    func step(edge: UInt32, from: Int32, to: Int32) -> GraphStep {
        step(from: CompactGraph.Step(from: UInt32(from), edge: edge, to: UInt32(to)))
    }

    /// Every reference `object` holds, strong ones first.
    func outgoingSteps(of object: Int32) -> [GraphStep] {
        graph.outgoing(from: UInt32(object)).map { step(from: $0) }
    }

    /// Every reference to `object`, strong ones first.
    func incomingSteps(to object: Int32) -> [GraphStep] {
        graph.incoming(to: UInt32(object)).map { step(from: $0) }
    }

    /// One shortest cycle of strong references through `object`, starting there.
    func strongCycle(through object: Int32) -> [GraphStep]? {
        graph.cycle(through: UInt32(object)).map { $0.map { step(from: $0) } }
    }

    private func step(from step: CompactGraph.Step) -> GraphStep {
        let ownership: RemoteReference.Ownership
        switch graph.kind(ofEdge: step.edge) {
        case .strong:
            // Until the graph carries a conservative ownership (issue 22), the label says it:
            // every reference read without a layout is labelled "… (read conservatively)".
            ownership =
                graph.label(ofEdge: step.edge).hasSuffix(Self.conservativeSuffix)
                ? .conservative : .strong
        case .weak: ownership = .weak
        case .unowned: ownership = .unowned
        case .unownedUnsafe: ownership = .unownedUnsafe
        }
        return GraphStep(
            from: Int32(step.from), to: Int32(step.to), label: graph.label(ofEdge: step.edge),
            ownership: ownership)
    }
}
