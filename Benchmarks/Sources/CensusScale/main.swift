// CensusScale: builds about a million live Swift objects after HeapCensus.start() and times
// HeapCensus.snapshot() (scan + build, goal <= 1 s) and snapshot.retentionPath(to:) for an
// object deep in the structure (goal <= 100 ms); prints the census's memory per live object
// (HeapCensus.tableBytes / HeapCensus.liveObjectCount, goal <= 24 bytes) and RSS.
//
//   CensusScale [on|off] [SECTIONS] [ITEMS_PER_SECTION] [CHAIN]
//
// Defaults: on, 1,000 sections of 995 items, a chain of 1,000: 1,001,003 objects with the
// storage and closure contexts. `off` builds the same graph without the census (for the RSS
// difference) and times nothing. Wall-clock figures come with /proc/loadavg and process CPU
// time: on a loaded machine the CPU time is the figure to compare. Scripts/census-scale.sh
// builds and runs it.
import CensusSupport
import HeapCensus
import HeapGrowth

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
let censusOn = arguments.count < 2 || arguments[1] != "off"
let sections = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
let itemsPerSection = arguments.count > 3 ? Int(arguments[3]) ?? 995 : 995
let chainLength = arguments.count > 4 ? Int(arguments[4]) ?? 1_000 : 1_000

func line(_ text: String) {
    print(text)
    fflush(nil)
}

/// Builds, measures and checks; a function, so the target is a local (held from the stack)
/// and not a global variable of main.swift.
func measure() {
    line("load average before: \(ProcessMemory.loadAverage)")
    let rssBefore = ProcessMemory.residentBytes
    if censusOn, !HeapCensus.start() {
        line("the census is unavailable here (\(HeapCensus.availability))")
        exit(1)
    }
    let target = buildCatalog(
        sections: sections, itemsPerSection: itemsPerSection, chainLength: chainLength)
    let rssBuilt = ProcessMemory.residentBytes
    line("census: \(censusOn ? "on" : "off")")
    line("RSS before building: \(ProcessMemory.mebibytes(rssBefore))")
    line("RSS after building: \(ProcessMemory.mebibytes(rssBuilt))")
    guard censusOn else {
        line("RSS growth: \(ProcessMemory.mebibytes(rssBuilt - rssBefore))")
        return
    }
    let live = HeapCensus.liveObjectCount
    let tableBytes = HeapCensus.tableBytes
    line("live census objects: \(live)")
    line("census table: \(tableBytes) bytes = \(ProcessMemory.mebibytes(tableBytes))")
    let perObject = Double(tableBytes) / Double(max(live, 1))
    line("census bytes per live object (tableBytes / liveObjectCount): \(perObject)")

    let wallStart = Clocks.wall
    let cpuStart = Clocks.processCPU
    let heap = HeapCensus.snapshot()
    let snapshotWall = Clocks.wall - wallStart
    let snapshotCPU = Clocks.processCPU - cpuStart
    line("load average after snapshot: \(ProcessMemory.loadAverage)")
    line("snapshot (scan + build): wall \(snapshotWall) s, process CPU \(snapshotCPU) s")
    line("objectCount: \(heap.objectCount)")
    line("referenceCount: \(heap.referenceCount)")

    let pathWallStart = Clocks.wall
    let pathCPUStart = Clocks.processCPU
    let path = heap.retentionPath(to: target)
    let pathWall = Clocks.wall - pathWallStart
    let pathCPU = Clocks.processCPU - pathCPUStart
    line("load average after retentionPath: \(ProcessMemory.loadAverage)")
    line("retentionPath(to:): wall \(pathWall * 1000) ms, process CPU \(pathCPU * 1000) ms")
    guard let path else {
        line("FAILED: no retention path to the chain's last item")
        exit(1)
    }
    line("path: \(path.objects.count) objects, holder: \(path.holder.description)")
    line("path starts: \(path.objects.prefix(4).map(\.typeName).joined(separator: " ⇒ "))")
    line("path ends with: \(path.references.suffix(2).map(\.label).joined(separator: ", "))")
    line("RSS after snapshot: \(ProcessMemory.mebibytes(ProcessMemory.residentBytes))")
    line("peak RSS (VmHWM): \(ProcessMemory.mebibytes(ProcessMemory.peakResidentBytes))")
    guard case .globalVariable(let name) = path.holder, name.contains("catalog"),
        path.objects.count >= chainLength
    else {
        line("FAILED: expected a path of at least \(chainLength) objects from the global catalog")
        exit(1)
    }
    withExtendedLifetime(target) {}
    measureGrowthCheck()
}

/// Objects one repetition of the measured work leaves behind (issue 14's growth check).
final class GrowthLeak {}
nonisolated(unsafe) var growthLeaks: [GrowthLeak] = []

/// The growth check's own cost with the million objects alive: `HeapGrowth.measure` of work
/// that only appends one object to a global (so nearly all the time is the check's).
func measureGrowthCheck() {
    let counts = Clocks.wall
    _ = HeapCensus.counts()
    line("HeapCensus.counts(): wall \((Clocks.wall - counts) * 1000) ms")
    var workSeconds = 0.0
    let wallStart = Clocks.wall
    let cpuStart = Clocks.processCPU
    let report = try? HeapGrowth.measure(repeating: 10) {
        let start = Clocks.wall
        growthLeaks.append(GrowthLeak())
        workSeconds += Clocks.wall - start
    }
    let total = Clocks.wall - wallStart
    let cpu = Clocks.processCPU - cpuStart
    line("load average after growth check: \(ProcessMemory.loadAverage)")
    line(
        "HeapGrowth.measure(repeating: 10) beyond the work: wall \(total - workSeconds) s, "
            + "process CPU \(cpu) s (the work: \(workSeconds * 1000) ms)")
    guard let report, let leak = report.grown.first(where: { $0.typeName.hasSuffix("GrowthLeak") })
    else {
        line("FAILED: the growth check did not report the leaking type")
        exit(1)
    }
    // The work made every instance: a release build must tell so too (its markers' frames are
    // specialized copies).
    guard leak.attribution == .body else {
        let attribution = leak.attribution.map { "\($0)" } ?? "nothing"
        line("FAILED: the leaking type was attributed to \(attribution), not to the work")
        exit(1)
    }
}

measure()
