// AttachCensusCompare: the objects `retain-graph attach` finds against the in-process census of
// the same program, at the same moment (issue 26: >= 99 % found, none the census lacks).
//
//   RETAINGRAPH_CENSUS=1 AttachCensusCompare serve CENSUS.json [SECTIONS]
//       builds a varied heap (about 1,000 objects per section: class instances, arrays,
//       dictionaries, closure contexts, boxes, a Task, a Foundation.Timer), prints
//       "ready PID", waits for a line on standard input (the attach happens meanwhile),
//       writes the census's objects (address, type) to CENSUS.json, prints "done", waits for
//       standard input to close.
//   AttachCensusCompare compare CENSUS.json ATTACH.json
//       ATTACH.json is `retain-graph attach PID --output ATTACH.json`; prints the share of the
//       census's objects the attach found, the objects the attach found that the census does
//       not have (by type), the census objects it missed (by type), and how many found objects
//       agree on the type name. Exits 1 when found < 99 % or the attach has an object the
//       census does not.
//
// Benchmarks/Scripts/attach-scale.sh runs both.
import Foundation
import HeapCensus
import ProcessAttach

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

func writeCensus(to path: String) throws {
    let heap = HeapCensus.snapshot()
    var objects: [[String]] = []
    objects.reserveCapacity(heap.objectCount)
    for index in 0..<heap.objectCount {
        let object = heap[HeapObjectID(rawValue: Int32(index))]
        objects.append([String(object.address, radix: 16), object.typeName])
    }
    try JSONSerialization.data(withJSONObject: ["objects": objects]).write(
        to: URL(fileURLWithPath: path))
}

func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

func compare(census path: String, attach attachPath: String) throws -> Bool {
    let census = try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: path)))
    let rows = ((census as? [String: Any])?["objects"] as? [[String]]) ?? []
    var censusTypes: [UInt: String] = [:]
    for row in rows where row.count == 2 {
        if let address = UInt(row[0], radix: 16) { censusTypes[address] = row[1] }
    }
    let heap = try RemoteHeapSnapshot(jsonData: Data(contentsOf: URL(fileURLWithPath: attachPath)))
    var found = 0
    var sameType = 0
    var extra: [String: Int] = [:]
    var attachAddresses = Set<UInt>()
    for index in 0..<heap.objectCount {
        let object = heap[RemoteObjectID(rawValue: Int32(index))]
        attachAddresses.insert(object.address)
        if let type = censusTypes[object.address] {
            found += 1
            if type == object.typeName { sameType += 1 }
        } else {
            extra[object.typeName, default: 0] += 1
        }
    }
    var missed: [String: Int] = [:]
    for (address, type) in censusTypes where !attachAddresses.contains(address) {
        missed[type, default: 0] += 1
    }
    let share = Double(found) / Double(max(censusTypes.count, 1)) * 100
    say("census objects: \(censusTypes.count); attach objects: \(heap.objectCount)")
    say(String(format: "found by the attach: %d of the census's objects (%.3f %%)", found, share))
    say("same type name: \(sameType) of \(found)")
    say("found by the attach, not in the census: \(extra.values.reduce(0, +))")
    for (type, count) in extra.sorted(by: { $0.value > $1.value }).prefix(15) {
        say("  \(count)  \(type)")
    }
    say("in the census, missed by the attach: \(missed.values.reduce(0, +))")
    for (type, count) in missed.sorted(by: { $0.value > $1.value }).prefix(15) {
        say("  \(count)  \(type)")
    }
    return share >= 99 && extra.isEmpty
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "serve" where arguments.count >= 3:
    build(sectionCount: arguments.count > 3 ? Int(arguments[3]) ?? 200 : 200)
    say("ready \(ProcessInfo.processInfo.processIdentifier)")
    _ = readLine()
    try writeCensus(to: arguments[2])
    say("done")
    while readLine() != nil {}
case "compare" where arguments.count == 4:
    exit(try compare(census: arguments[2], attach: arguments[3]) ? 0 : 1)
default:
    FileHandle.standardError.write(Data("usage: see the comment at the top of main.swift\n".utf8))
    exit(2)
}
