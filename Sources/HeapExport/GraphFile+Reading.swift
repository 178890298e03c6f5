import ObjectGraph

/// A graph file's JSON, as decoded, and its conversion back to a graph with every reference
/// to a node, string or role checked.
struct FileColumns: Decodable {
    struct Nodes: Decodable {
        var kind: [UInt8]
        var type: [UInt32]
        var label: [UInt32]
        var address: [UInt]
        var size: [UInt32]
    }
    struct Edges: Decodable {
        var from: [UInt32]
        var to: [UInt32]
        var ownership: [UInt8]
        var origin: [UInt8]
        var lowPriority: [UInt8]
        var role: [UInt32]
    }
    struct Root: Decodable {
        var node: UInt32
        var kind: String
        var name: String
        var holder: String?
    }

    var format: String
    var version: Int
    var nodes: Nodes
    var edges: Edges
    var roots: [Root]
    var roles: [[String?]]
    var strings: [String]
    /// Facts about where the graph came from (absent from files written without them).
    var attributes: [String: String]?

    /// What is wrong with a file that decoded but does not describe a graph.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    func graph() throws -> CompactGraph {
        let count = nodes.kind.count
        guard
            [nodes.type.count, nodes.label.count, nodes.address.count, nodes.size.count]
                .allSatisfy({ $0 == count })
        else { throw Problem(description: "its node columns differ in length") }
        let edgeCount = edges.from.count
        guard
            [
                edges.to.count, edges.ownership.count, edges.origin.count, edges.lowPriority.count,
                edges.role.count,
            ].allSatisfy({ $0 == edgeCount })
        else { throw Problem(description: "its edge columns differ in length") }
        var builder = CompactGraph.Builder(expectedNodes: count, expectedEdges: edgeCount)
        let stringNumbers = strings.map { builder.intern($0) }
        var roleNumbers: [UInt32] = []
        for (index, triple) in roles.enumerated() {
            guard triple.count == 3, let name = triple[0],
                let role = ReferenceRole(name: name, detail: triple[1], path: triple[2])
            else { throw Problem(description: "role \(index) is not one this library knows") }
            roleNumbers.append(builder.intern(role))
        }
        func string(_ number: UInt32, _ what: String) throws -> UInt32 {
            guard Int(number) < stringNumbers.count else {
                throw Problem(description: "\(what) names string \(number), which does not exist")
            }
            return stringNumbers[Int(number)]
        }
        for node in 0..<count {
            guard let kind = CompactGraph.NodeKind(rawValue: nodes.kind[node]) else {
                throw Problem(description: "node \(node) has an unknown kind")
            }
            builder.addNode(
                kind: kind, typeNameNumber: try string(nodes.type[node], "node \(node)"),
                labelNumber: try string(nodes.label[node], "node \(node)"),
                address: nodes.address[node], size: Int(nodes.size[node]))
        }
        for edge in 0..<edgeCount {
            guard Int(edges.from[edge]) < count, Int(edges.to[edge]) < count else {
                throw Problem(description: "edge \(edge) names a node that does not exist")
            }
            guard Int(edges.role[edge]) < roleNumbers.count,
                Ownership.allCases.contains(where: { $0.byte == edges.ownership[edge] }),
                let origin = ReferenceOrigin(rawValue: edges.origin[edge])
            else {
                throw Problem(description: "edge \(edge) has an unknown role, ownership or origin")
            }
            let ownership = Ownership(byte: edges.ownership[edge])
            builder.addEdge(
                from: edges.from[edge], to: edges.to[edge], ownership: ownership,
                roleNumber: roleNumbers[Int(edges.role[edge])], origin: origin,
                isLowPriority: edges.lowPriority[edge] != 0)
        }
        for (index, root) in roots.enumerated() {
            guard Int(root.node) < count,
                let kind = RootColumns.decode(kind: root.kind, name: root.name, holder: root.holder)
            else { throw Problem(description: "root \(index) is not one this library knows") }
            builder.addRoot(root.node, kind: kind)
        }
        return builder.build(numberingForLocality: false)
    }
}

/// Root kinds as a graph file writes them: a kind, a name, and a holder's kind for a heap
/// holder, whose name then carries what the holder knows (a variable's or a thread's name; for
/// a thread's stack, its id and name; for unattributed references, what the reader saw).
enum RootColumns {
    static func encode(_ kind: RootKind) -> (kind: String, name: String, holder: String?) {
        switch kind {
        case .runLoop(let thread): return ("runLoop", thread, nil)
        case .dispatchQueue(let label): return ("dispatchQueue", label, nil)
        case .immortalType(let name): return ("immortalType", name, nil)
        case .process: return ("process", "", nil)
        case .custom(let name): return ("custom", name, nil)
        case .heapHolder(let holder):
            return ("heapHolder", payload(of: holder), holder.kind.rawValue)
        }
    }

    private static func payload(of holder: HeapHolder) -> String {
        switch holder {
        case .globalVariable(let name): return name
        case .thread(let name): return name ?? ""
        case .threadStack(let id, let name): return "\(id) \(name)"
        case .outside(let references):
            return [
                references.stacksWereRead ? "stacks" : nil,
                references.earlierObjectsUnknown ? "earlier" : nil,
            ].compactMap { $0 }.joined(separator: ",")
        case .scheduledTimer, .foundationTimer, .task, .dispatchBlock: return ""
        }
    }

    private static func holder(kind: HeapHolderKind, payload: String) -> HeapHolder {
        switch kind {
        case .globalVariable:
            // Files of earlier versions wrote the description.
            let prefix = "global variable "
            return .globalVariable(
                name: payload.hasPrefix(prefix) ? String(payload.dropFirst(prefix.count)) : payload)
        case .thread: return .thread(name: payload.isEmpty ? nil : payload)
        case .threadStack:
            let parts = payload.split(separator: " ", maxSplits: 1)
            return .threadStack(
                threadID: parts.first.flatMap { Int32($0) } ?? 0,
                name: parts.count > 1 ? String(parts[1]) : "?")
        case .outside:
            let flags = payload.split(separator: ",")
            return .outside(
                UnattributedReferences(
                    stacksWereRead: flags.contains("stacks"),
                    earlierObjectsUnknown: flags.contains("earlier")))
        case .scheduledTimer: return .scheduledTimer
        case .foundationTimer: return .foundationTimer
        case .task: return .task
        case .dispatchBlock: return .dispatchBlock
        }
    }

    static func decode(kind: String, name: String, holder: String?) -> RootKind? {
        switch kind {
        case "runLoop": return .runLoop(thread: name)
        case "dispatchQueue": return .dispatchQueue(label: name)
        case "immortalType": return .immortalType(name: name)
        case "process": return .process
        case "custom": return .custom(name: name)
        case "heapHolder":
            return holder.flatMap(HeapHolderKind.init(rawValue:)).map {
                .heapHolder(Self.holder(kind: $0, payload: name))
            }
        default: return nil
        }
    }
}
