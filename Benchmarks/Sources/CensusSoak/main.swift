// CensusSoak: the census on, 10 million allocate + free cycles (objects, arrays, closures,
// dictionaries) and no reads; prints RSS and the census table's size before, every million
// cycles, and after. The goal is bounded memory: the table tracks the live set (a few
// thousand objects here), not the number of allocations.
//
//   CensusSoak [CYCLES]              default 10,000,000
//
// Run it in debug and in release (Scripts/census-soak.sh does both).
import CensusSupport
import HeapCensus

#if canImport(Glibc)
import Glibc
#endif

let cycles =
    CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 10_000_000 : 10_000_000

/// Recently made objects kept alive for a while: a live set that churns.
nonisolated(unsafe) var ring = [Payload?](repeating: nil, count: 4096)
nonisolated(unsafe) var closureSink: (() -> Int)?
nonisolated(unsafe) var dictionarySink: [Int: Payload] = [:]

func report(_ label: String) {
    print(
        "\(label): RSS \(ProcessMemory.mebibytes(ProcessMemory.residentBytes)),"
            + " table \(HeapCensus.tableBytes) bytes, live census objects \(HeapCensus.liveObjectCount),"
            + " load \(ProcessMemory.loadAverage)")
    fflush(nil)
}

guard HeapCensus.start() else {
    print("the census is unavailable here (\(HeapCensus.availability))")
    exit(1)
}
report("before")
let started = Clocks.wall
for cycle in 0..<cycles {
    switch cycle % 4 {
    case 0:
        ring[cycle & 4095] = Payload(cycle)
    case 1:
        arraySink = [Payload(cycle), Payload(cycle &+ 1)]
    case 2:
        let captured = Payload(cycle)
        closureSink = { captured.value }
    default:
        dictionarySink = [cycle: Payload(cycle)]
    }
    if cycle % 1_000_000 == 999_999 { report("after \((cycle + 1) / 1_000_000)M cycles") }
}
ring = []
arraySink = []
closureSink = nil
dictionarySink = [:]
report("after (everything dropped)")
print("cycles: \(cycles), wall \(Clocks.wall - started) s")
