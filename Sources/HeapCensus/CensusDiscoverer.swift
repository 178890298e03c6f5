import RetainGraph

/// Explains watched objects with the heap census: the reference discoverer that
/// ``HeapCensus/start()`` registers in `DiscoveryRegistry.shared`, so every `LeakWatcher` (the
/// Swift Testing trait and the XCTest helper included) uses it with no setup.
///
/// For each watched object still alive that the snapshot does not already hold from a root,
/// it adds the shortest strong path the census finds: a root node for the holder (a global
/// variable, a `Task`, a `Foundation.Timer`, a block libdispatch keeps, or references from
/// outside the heap), the objects on the way, and the references between them, each marked
/// found in the heap. Objects the snapshot knows keep their identities, so the path joins what
/// the graph and reflection recorded.
///
/// ```swift
/// HeapCensus.start()                         // registers this discoverer
/// let watcher = LeakWatcher()                // uses it at every check
/// ```
public struct CensusDiscoverer: ReferenceDiscoverer {
    /// The name it is registered under.
    public static let name = "HeapCensus"

    /// Creates a discoverer; the census must be running for it to find anything.
    public init() {}

    /// Adds, for each watched object, the census's path from its holder.
    ///
    /// - Parameters:
    ///   - snapshot: The graph to enrich.
    ///   - request: The watched objects still alive.
    /// - Complexity: One census snapshot (O(*n* + *r*) for *n* live objects holding *r* references), then a walk
    ///   over each watched object's holders.
    public func discoverReferences(
        into snapshot: inout GraphSnapshot, for request: DiscoveryRequest
    ) {
        guard HeapCensus.isRunning || HeapCensus.liveObjectCount > 0, !request.watched.isEmpty
        else { return }
        let heap = HeapCensus.snapshot()
        // The request's own array holds every watched object: never a holder worth naming.
        let requestStorage = request.watched.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.flatMap { heap.storageID(ofElementsAt: UInt(bitPattern: $0)) }
        }
        var nodes: [Node] = []
        var references: [Reference] = []
        var known = Set(snapshot.nodes.map(\.id))
        for watched in request.watched {
            guard snapshot.shortestStrongPath(to: watched.id) == nil,
                let target = heap.id(of: watched.object),
                let path = heap.retentionPath(
                    to: target, ignoring: requestStorage.map { [$0] } ?? [])
            else { continue }
            var ids: [ObjectID] = []
            for (index, object) in path.objects.enumerated() {
                if index == path.objects.count - 1 {
                    ids.append(watched.id)
                    continue
                }
                let id: ObjectID
                if let live = heap.liveObject(object.id) {
                    id = request.id(of: live)
                } else {
                    id = ObjectID.nextDiscovered()
                }
                ids.append(id)
                if known.insert(id).inserted {
                    nodes.append(
                        Node(
                            id: id, typeName: object.typeName,
                            kind: object.typeName == "Foundation.Timer" ? .timer : .object,
                            address: object.address))
                }
            }
            let root = ObjectID.nextDiscovered()
            nodes.append(
                Node(
                    id: root, typeName: path.holder.kind.rawValue,
                    kind: .root(.heapHolder(path.holder.kind, description: path.holder.description))
                ))
            references.append(
                Reference(
                    from: root, to: ids[0], kind: .strong, role: path.holder.role,
                    isFoundInHeap: true))
            for (index, reference) in path.references.enumerated() {
                references.append(
                    Reference(
                        from: ids[index], to: ids[index + 1], kind: reference.ownership.kind,
                        role: reference.role(target: path.objects[index + 1]),
                        isFoundInHeap: true))
            }
        }
        guard !nodes.isEmpty || !references.isEmpty else { return }
        snapshot = snapshot.adding(nodes: nodes, references: references)
    }
}

extension HeapHolder {
    /// The kind recorded in the root node.
    var kind: HeapHolderKind {
        switch self {
        case .globalVariable: return .globalVariable
        case .scheduledTimer: return .scheduledTimer
        case .foundationTimer: return .foundationTimer
        case .task: return .task
        case .dispatchBlock: return .dispatchBlock
        case .outside: return .outside
        }
    }

    /// The role of the root's reference to the first object.
    var role: ReferenceRole {
        switch self {
        case .globalVariable(let name): return .storedProperty(name: name)
        case .scheduledTimer: return .declared("valid until invalidated, never freed on Linux")
        case .foundationTimer: return .declared("never freed on Linux")
        case .task: return .declared("runs or sleeps")
        case .dispatchBlock: return .declared("keeps the block")
        case .outside(let count): return .declared("\(count) reference\(count == 1 ? "" : "s")")
        }
    }
}

extension HeapReference {
    /// The role a report shows: a capture or a stored property. Memory read without a layout
    /// (a block's or a task's) names what it captures by the target's type.
    func role(target: HeapObjectRecord) -> ReferenceRole {
        let targetName =
            target.typeName.hasPrefix("closure context")
            ? "a closure"
            : target.typeName.split(separator: ".").last.map(String.init) ?? target.typeName
        switch label {
        case "captures": return .capture(name: targetName)
        case "captures (read conservatively)":
            return .capture(name: "\(targetName) (read conservatively)")
        case "runs": return .declared("runs \(targetName)")
        default:
            if label.hasPrefix("captures ") { return .capture(name: String(label.dropFirst(9))) }
            return .storedProperty(name: label)
        }
    }
}

extension HeapReference.Ownership {
    var kind: ReferenceKind {
        switch self {
        case .strong: return .strong
        case .weak: return .weak
        case .unowned: return .unowned
        case .unownedUnsafe: return .unowned
        }
    }
}
