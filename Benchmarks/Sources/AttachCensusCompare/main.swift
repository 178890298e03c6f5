// AttachCensusCompare: the heap `retain-graph attach` finds against the in-process census of
// the same program, at the same moment (issue 26: >= 99 % of the objects found, none the census
// lacks), and whether both name the same types and the same references with the same roles
// (issue 22: a report reads the same whichever found it).
//
//   RETAINGRAPH_CENSUS=1 AttachCensusCompare serve CENSUS.json [SECTIONS]
//       builds a varied heap (about 1,000 objects per section: class instances, arrays,
//       dictionaries, sets, closure contexts, boxes, a Task, a Foundation.Timer), prints
//       "ready PID", waits for a line on standard input (the attach happens meanwhile),
//       writes the census's graph (GraphFile) to CENSUS.json, prints "done", waits for
//       standard input to close.
//   AttachCensusCompare compare CENSUS.json ATTACH.json
//       ATTACH.json is `retain-graph attach PID --output ATTACH.json` (a graph file too);
//       prints the share of the census's objects the attach found, the objects it found that
//       the census does not have and those it missed (by type), how many found objects agree
//       on the type name, and how many of the census's references between found objects the
//       attach has with the same role and ownership (the disagreements, by role). Exits 1
//       when found < 99 % or the attach has an object the census does not.
//   AttachCensusCompare headers PID ADDRESS...
//       prints the glibc chunk header and the first words of each block at ADDRESS in process
//       PID (read with process_vm_readv; run as root or with ptrace permission): what a missed
//       or extra object looks like to the heap walk.
//
// Benchmarks/Scripts/attach-scale.sh runs serve and compare.
import Foundation
import HeapCensus
import HeapExport
import ObjectGraph

final class Section {
    let id: Int
    var items: [Item] = []
    var lookup: [Int: Item] = [:]
    var tags: Set<String> = []
    var onChange: (() -> Int)?
    init(id: Int) { self.id = id }
}

final class Item {
    let id: Int
    var next: Item?
    weak var section: Section?
    var payload: Any?
    init(id: Int, section: Section?) {
        self.id = id
        self.section = section
    }
}

final class Ticker: @unchecked Sendable {
    var ticks = 0
    var timer: Timer?
    var task: Task<Void, Never>?
}

nonisolated(unsafe) var sections: [Section] = []
nonisolated(unsafe) var ticker: Ticker?

func build(sectionCount: Int) {
    for sectionID in 0..<sectionCount {
        let section = Section(id: sectionID)
        var counter = 0
        var previous: Item?
        for itemID in 0..<990 {
            let item = Item(id: sectionID * 1_000 + itemID, section: section)
            if itemID % 7 == 0 { item.payload = [item.id] }
            previous?.next = item
            previous = item
            section.items.append(item)
            if itemID % 4 == 0 { section.lookup[item.id] = item }
        }
        section.tags = ["s\(sectionID)", "tag"]
        let first = section.items.first
        section.onChange = {
            counter += 1
            return (first?.id ?? 0) + counter
        }
        sections.append(section)
    }
    let owner = Ticker()
    owner.timer = Timer.scheduledTimer(withTimeInterval: 3_600, repeats: true) { _ in
        owner.ticks += 1
    }
    owner.task = Task {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3_600))
            owner.ticks += 1
        }
    }
    ticker = owner
}

func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

/// A heap graph's objects (the nodes before the holders) by address.
struct Heap {
    let graph: CompactGraph
    var objectByAddress: [UInt: CompactGraph.NodeID] = [:]

    init(path: String) throws {
        graph = try GraphFile.read(fromFile: path)
        for node in 0..<UInt32(graph.nodeCount) where graph.kind(of: node) != .root {
            if let address = graph.address(of: node) { objectByAddress[address] = node }
        }
    }

    /// The references between objects, by (holder address, target address), with their
    /// role and ownership as reports print them.
    func references() -> [Pair: Set<String>] {
        var result: [Pair: Set<String>] = [:]
        for (address, node) in objectByAddress {
            for step in graph.outgoing(from: node) where graph.kind(of: step.to) != .root {
                guard let target = graph.address(of: step.to) else { continue }
                let ownership = graph.ownership(ofEdge: step.edge)
                let text = "\(graph.label(ofEdge: step.edge)) [\(ownership.rawValue)]"
                result[Pair(from: address, to: target), default: []].insert(text)
            }
        }
        return result
    }

    /// The kind of holder the path to `node` starts at (`unreached` when no holder reaches
    /// it: a cycle, or only weak references).
    func holderKind(of node: CompactGraph.NodeID, in paths: CompactGraph.PathTree) -> String {
        guard let first = paths.path(to: node)?.first,
            case .heapHolder(let kind)? = graph.rootKind(of: first.from)
        else { return "unreached" }
        return kind.kind.rawValue
    }

    struct Pair: Hashable {
        var from: UInt
        var to: UInt
    }
}

func printTop(_ counts: [String: Int], _ limit: Int = 15) {
    for (key, count) in counts.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) })
        .prefix(limit)
    {
        say("  \(count)  \(key)")
    }
}

func compare(census path: String, attach attachPath: String) throws -> Bool {
    let census = try Heap(path: path)
    let attach = try Heap(path: attachPath)
    var found = 0
    var sameType = 0
    var typeDisagreements: [String: Int] = [:]
    var extra: [String: Int] = [:]
    var extraAt: [String] = []
    for (address, node) in attach.objectByAddress {
        let type = attach.graph.typeName(of: node)
        if let censusNode = census.objectByAddress[address] {
            found += 1
            let censusType = census.graph.typeName(of: censusNode)
            if censusType == type {
                sameType += 1
            } else {
                typeDisagreements["census \(censusType) | attach \(type)", default: 0] += 1
            }
        } else {
            extra[type, default: 0] += 1
            extraAt.append("\(type) at 0x\(String(address, radix: 16))")
        }
    }
    var missed: [String: Int] = [:]
    for (address, node) in census.objectByAddress where attach.objectByAddress[address] == nil {
        missed["\(census.graph.typeName(of: node)) at 0x\(String(address, radix: 16))"] = 1
    }
    let share = Double(found) / Double(max(census.objectByAddress.count, 1)) * 100
    say(
        "census objects: \(census.objectByAddress.count); attach objects: \(attach.objectByAddress.count)"
    )
    say(String(format: "found by the attach: %d of the census's objects (%.3f %%)", found, share))
    say("same type name: \(sameType) of \(found)")
    printTop(typeDisagreements)
    say("found by the attach, not in the census: \(extra.values.reduce(0, +))")
    printTop(extra)
    for object in extraAt.sorted().prefix(10) { say("  extra: \(object)") }
    say("in the census, missed by the attach: \(missed.count)")
    printTop(missed)

    // References between objects both found: the census's, looked up in the attach's.
    let censusReferences = census.references()
    let attachReferences = attach.references()
    var compared = 0
    var same = 0
    var roleDisagreements: [String: Int] = [:]
    var absent: [String: Int] = [:]
    for (pair, censusRoles) in censusReferences
    where attach.objectByAddress[pair.from] != nil && attach.objectByAddress[pair.to] != nil {
        compared += censusRoles.count
        let attachRoles = attachReferences[pair] ?? []
        same += censusRoles.intersection(attachRoles).count
        let from = census.graph.typeName(of: census.objectByAddress[pair.from] ?? 0)
        for role in censusRoles.subtracting(attachRoles) {
            if attachRoles.isEmpty {
                absent["\(from) ⇒ \(role)", default: 0] += 1
            } else {
                let other = attachRoles.subtracting(censusRoles).sorted().joined(separator: ", ")
                roleDisagreements["\(from): census \(role) | attach \(other)", default: 0] += 1
            }
        }
    }
    var attachOnly: [String: Int] = [:]
    for (pair, attachRoles) in attachReferences
    where census.objectByAddress[pair.from] != nil && census.objectByAddress[pair.to] != nil {
        let censusRoles = censusReferences[pair] ?? []
        guard censusRoles.isEmpty else { continue }
        let from = attach.graph.typeName(of: attach.objectByAddress[pair.from] ?? 0)
        for role in attachRoles { attachOnly["\(from) ⇒ \(role)", default: 0] += 1 }
    }
    say(
        "census references between found objects: \(compared); the attach's with the same role "
            + "and ownership: \(same) (\(String(format: "%.3f", Double(same) / Double(max(compared, 1)) * 100)) %)"
    )
    say("same holder and target, another role: \(roleDisagreements.values.reduce(0, +))")
    printTop(roleDisagreements)
    say("census references the attach lacks: \(absent.values.reduce(0, +))")
    printTop(absent)
    say("attach references the census lacks: \(attachOnly.values.reduce(0, +))")
    printTop(attachOnly)

    // Who holds each object both found: the kind of holder its path starts at (the one path
    // finder, on each graph). The census cannot see stacks: what a thread's stack holds, it
    // calls held from outside.
    let censusPaths = census.graph.paths()
    let attachPaths = attach.graph.paths()
    var sameHolder = 0
    var holderDisagreements: [String: Int] = [:]
    for (address, node) in census.objectByAddress {
        guard let attachNode = attach.objectByAddress[address] else { continue }
        let censusHolder = census.holderKind(of: node, in: censusPaths)
        let attachHolder = attach.holderKind(of: attachNode, in: attachPaths)
        if censusHolder == attachHolder {
            sameHolder += 1
        } else {
            let type = census.graph.typeName(of: node)
            holderDisagreements[
                "\(type): census \(censusHolder) | attach \(attachHolder)", default: 0] += 1
        }
    }
    say("objects whose path starts at the same kind of holder: \(sameHolder) of \(found)")
    printTop(holderDisagreements)
    return share >= 99 && extra.isEmpty
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "serve" where arguments.count >= 3:
    build(sectionCount: arguments.count > 3 ? Int(arguments[3]) ?? 200 : 200)
    say("ready \(ProcessInfo.processInfo.processIdentifier)")
    _ = readLine()
    try GraphFile.write(HeapCensus.snapshot().graph, toFile: arguments[2])
    say("done")
    while readLine() != nil {}
case "compare" where arguments.count == 4:
    exit(try compare(census: arguments[2], attach: arguments[3]) ? 0 : 1)
case "headers" where arguments.count >= 4:
    guard let pid = Int32(arguments[2]) else { exit(2) }
    for text in arguments.dropFirst(3) {
        guard let address = UInt(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16)
        else { continue }
        say(ChunkHeaders.describe(pid: pid, address: address))
    }
default:
    FileHandle.standardError.write(Data("usage: see the comment at the top of main.swift\n".utf8))
    exit(2)
}
