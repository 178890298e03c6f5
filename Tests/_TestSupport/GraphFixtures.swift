import RetainGraph

/// Builds synthetic ``GraphSnapshot``s node by node, for tests of the graph algorithms.
///
/// Identities are handed out from `firstID` in steps of `idStep`, and addresses from
/// `addressBase`, so a test can build the same shape twice with different identities and
/// addresses (fingerprints must not change).
///
/// ```swift
/// var graph = GraphBuilder()
/// let root = graph.root()
/// let timer = graph.object("Foundation.Timer", kind: .timer)
/// graph.strong(root, timer, .scheduled(mode: "default"))
/// let snapshot = graph.snapshot
/// ```
public struct GraphBuilder {
    /// The nodes made so far, in creation order.
    public private(set) var nodes: [Node] = []
    /// The references made so far, in creation order.
    public private(set) var references: [Reference] = []
    private var nextRaw: UInt64
    private let idStep: UInt64
    private let addressBase: UInt

    /// Creates an empty builder.
    ///
    /// - Parameters:
    ///   - firstID: The raw value of the first identity.
    ///   - idStep: The distance between consecutive identities.
    ///   - addressBase: The address of the first node; later ones follow 16 bytes apart.
    public init(firstID: UInt64 = 1, idStep: UInt64 = 1, addressBase: UInt = 0x1000) {
        nextRaw = firstID
        self.idStep = idStep
        self.addressBase = addressBase
    }

    /// Adds a non-root node of the given type.
    ///
    /// - Returns: Its identity.
    @discardableResult
    public mutating func object(
        _ typeName: String, kind: NodeKind = .object, label: String? = nil,
        timer: TimerInfo? = nil
    ) -> ObjectID {
        let id = ObjectID(rawValue: nextRaw)
        nextRaw += idStep
        let address = addressBase + UInt(nodes.count) * 16
        nodes.append(
            Node(
                id: id, typeName: typeName, label: label, kind: kind, address: address, timer: timer
            ))
        return id
    }

    /// Adds a root node.
    ///
    /// - Returns: Its identity.
    @discardableResult
    public mutating func root(_ kind: RootKind = .runLoop(thread: "main")) -> ObjectID {
        object(kind == .process ? "Process" : "RunLoop", kind: .root(kind))
    }

    /// Adds a reference of any kind.
    public mutating func edge(
        _ from: ObjectID, _ to: ObjectID, ownership: Ownership,
        _ role: ReferenceRole = .storedProperty(name: "next")
    ) {
        references.append(Reference(from: from, to: to, ownership: ownership, role: role))
    }

    /// Adds a strong reference.
    public mutating func strong(
        _ from: ObjectID, _ to: ObjectID, _ role: ReferenceRole = .storedProperty(name: "next")
    ) {
        edge(from, to, ownership: .strong, role)
    }

    /// Adds a weak reference.
    public mutating func weak(
        _ from: ObjectID, _ to: ObjectID, _ role: ReferenceRole = .storedProperty(name: "back")
    ) {
        edge(from, to, ownership: .weak, role)
    }

    /// Adds `count` objects of type `typeName` holding each other strongly in a line.
    ///
    /// - Returns: The objects, head first.
    @discardableResult
    public mutating func chain(
        _ count: Int, typeName: String = "App.Link",
        role: ReferenceRole = .storedProperty(name: "next")
    ) -> [ObjectID] {
        let ids = (0..<count).map { _ in object(typeName) }
        for (from, to) in zip(ids, ids.dropFirst()) { strong(from, to, role) }
        return ids
    }

    /// Adds a strong cycle through objects of the given type names, in order: each holds the
    /// next, and the last holds the first.
    ///
    /// - Returns: The objects, in the order given.
    @discardableResult
    public mutating func cycle(
        _ typeNames: [String], role: ReferenceRole = .storedProperty(name: "next")
    ) -> [ObjectID] {
        let ids = typeNames.map { object($0) }
        guard let first = ids.first, let last = ids.last else { return [] }
        for (from, to) in zip(ids, ids.dropFirst()) { strong(from, to, role) }
        strong(last, first, role)
        return ids
    }

    /// The snapshot of everything built so far.
    public var snapshot: GraphSnapshot { GraphSnapshot(nodes: nodes, references: references) }
}

/// Checks that `cycle` is a closed walk: each reference's holder is the previous one's target.
///
/// - Returns: Whether the references form a loop.
public func isClosedLoop(_ cycle: [Reference]) -> Bool {
    guard let first = cycle.first, let last = cycle.last else { return false }
    for (a, b) in zip(cycle, cycle.dropFirst()) where a.to != b.from { return false }
    return last.to == first.from
}
