// HeapProfileScale: a process with about a million live Swift objects (made at eight sites),
// and what issue 27 asks of it.
//
//   HeapProfileScale census [COUNT]    HeapCensus.start(), then COUNT objects: the census's
//                                      memory per live object with creation sites
//                                      ((tableBytes + creationSiteBytes) / liveObjectCount)
//   HeapProfileScale sampled [COUNT]   HeapCensus.startSampling() (512 KiB), then COUNT objects:
//                                      the time of one heap profile (read, symbolicate, encode,
//                                      gzip), five times (the first symbolicates cold)
//
// COUNT defaults to 1,000,000. Wall-clock figures come with /proc/loadavg and process CPU time.
import CensusSupport
import HeapCensus
import HeapProfiles

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 2, ["census", "sampled"].contains(arguments[1]) else {
    print("usage: HeapProfileScale census|sampled [COUNT]")
    exit(2)
}
let count = arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000

func line(_ text: String) {
    print(text)
    fflush(nil)
}

/// Objects of a few kinds from eight functions (eight creation sites, eight profile stacks).
final class Node {
    var value: Int
    var next: Node?
    init(_ value: Int, next: Node?) {
        self.value = value
        self.next = next
    }
}

final class Record {
    var name = "record"
    var payload = (0, 0, 0, 0)
}

@inline(never) func makeNodes(_ count: Int) -> [Node] {
    var last: Node?
    return (0..<count).map { index in
        last = Node(index, next: index % 4 == 0 ? nil : last)
        return last!
    }
}
@inline(never) func makeRecords(_ count: Int) -> [Record] { (0..<count).map { _ in Record() } }
@inline(never) func makePayloads(_ count: Int) -> [Payload] { (0..<count).map { Payload($0) } }
@inline(never) func makeClosures(_ count: Int) -> [() -> Int] {
    (0..<count).map { index in
        let node = Node(index, next: nil)
        return { node.value + index }
    }
}
@inline(never) func makeArrays(_ count: Int) -> [[Int]] {
    (0..<count).map { [$0, $0 + 1, $0 + 2] }
}
@inline(never) func makeStrings(_ count: Int) -> [String] {
    (0..<count).map { "a string long enough for the heap: \($0)" }
}
@inline(never) func makeBoxes(_ count: Int) -> [Any] { (0..<count).map { Payload($0) as Any } }
@inline(never) func makeDictionaries(_ count: Int) -> [[Int: Int]] {
    (0..<count).map { [$0: $0] }
}

/// What the process keeps alive: about `count` objects (closures count twice).
struct Population {
    var nodes: [Node], records: [Record], payloads: [Payload], closures: [() -> Int]
    var arrays: [[Int]], strings: [String], boxes: [Any], dictionaries: [[Int: Int]]

    init(_ count: Int) {
        let share = count / 9
        nodes = makeNodes(share * 2)
        records = makeRecords(share)
        payloads = makePayloads(share)
        closures = makeClosures(share / 2)
        arrays = makeArrays(share)
        strings = makeStrings(share)
        boxes = makeBoxes(share)
        dictionaries = makeDictionaries(share)
    }
}

line("load average before: \(ProcessMemory.loadAverage)")
switch arguments[1] {
case "census":
    guard HeapCensus.start() else {
        line("the census is unavailable here (\(HeapCensus.availability))")
        exit(1)
    }
    let population = Population(count)
    let live = HeapCensus.liveObjectCount
    let table = HeapCensus.tableBytes
    let sites = HeapCensus.creationSiteBytes
    line("live census objects: \(live)")
    line(
        "creation sites: \(HeapCensus.creationSiteCount)"
            + " (shortened: \(HeapCensus.creationSitesShortened),"
            + " dropped: \(HeapCensus.creationSitesDropped))")
    line("census table: \(table) bytes, site table: \(sites) bytes")
    line("census bytes per live object with sites: \(Double(table + sites) / Double(max(live, 1)))")
    let site = HeapCensus.creationSite(of: population.records[0])
    line("a record's creation site: \(site?.description ?? "none")")
    guard site != nil else { exit(1) }
    withExtendedLifetime(population) {}
default:
    guard HeapCensus.startSampling() else {
        line("sampling is unavailable here (\(HeapCensus.availability))")
        exit(1)
    }
    let population = Population(count)
    line(
        "live samples: \(HeapCensus.liveSampleCount),"
            + " sample tables: \(HeapCensus.sampleTableBytes) bytes")
    for run in 1...5 {
        let wall = Clocks.wall
        let cpu = Clocks.processCPU
        let profile = HeapProfile.sampled()
        let bytes = (try? profile.gzipped()) ?? []
        let wallMs = (Clocks.wall - wall) * 1000
        let cpuMs = (Clocks.processCPU - cpu) * 1000
        let estimate = profile.heap.estimatedInUseBytes / 1_048_576
        line(
            "profile \(run): \(String(format: "%.1f", wallMs)) ms wall, "
                + "\(String(format: "%.1f", cpuMs)) ms CPU, \(bytes.count) bytes gzip'ed, "
                + "\(profile.heap.records.count) records, "
                + "estimated live \(String(format: "%.1f", estimate)) MiB;"
                + " load \(ProcessMemory.loadAverage)")
    }
    line("RSS: \(ProcessMemory.mebibytes(ProcessMemory.residentBytes))")
    withExtendedLifetime(population) {}
}
