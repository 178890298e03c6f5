extension CompactGraph {
    /// What a node of a compact graph stands for, in one byte.
    public enum NodeKind: UInt8, Sendable, CaseIterable {
        /// An ordinary object (class instance).
        case object
        /// A timer: a run-loop timer, a dispatch timer, a frame timer or a `Foundation.Timer`.
        case timer
        /// A proxy that forwards to a target.
        case proxy
        /// A closure's context.
        case closure
        /// A root: something that outlives what it holds (a run loop, a queue, a global).
        case root
        /// A box the compiler made for a captured variable.
        case box
        /// The storage of a collection (Array, Dictionary, Set).
        case storage
    }

    /// How strongly an edge holds its target.
    @available(*, deprecated, renamed: "Ownership")
    public typealias EdgeKind = Ownership

    /// One edge along a path: the holder, the edge's position and the held node.
    public struct Step: Hashable, Sendable {
        /// The holder.
        public let from: NodeID
        /// The edge's position in the graph's edge arrays.
        public let edge: EdgeID
        /// The held node.
        public let to: NodeID

        /// Creates a step.
        public init(from: NodeID, edge: EdgeID, to: NodeID) {
            self.from = from
            self.edge = edge
            self.to = to
        }
    }
}
