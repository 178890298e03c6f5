// CensusCost: the allocation loops of CensusSupport in an executable that links HeapCensus
// (its malloc and free are the census's), with the census off, on (recording every object and
// its creation site) or sampling: modes of Scripts/census-cost.sh.
//
//   CensusCost off|on|sampled LOOP COUNT     LOOP: object | array
//
// `on` calls HeapCensus.start() before the loop (RETAINGRAPH_CENSUS=1 at launch does the same);
// `sampled` calls HeapCensus.startSampling() (512 KiB between samples, the census not
// recording).
import CensusSupport
import HeapCensus

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 4, ["off", "on", "sampled"].contains(arguments[1]),
    let loop = AllocationLoop(rawValue: arguments[2]), let count = Int(arguments[3]), count >= 0
else {
    print("usage: CensusCost off|on|sampled object|array COUNT")
    exit(2)
}
if arguments[1] == "on", !HeapCensus.start() {
    print("the census is unavailable here (\(HeapCensus.availability))")
    exit(1)
}
if arguments[1] == "sampled", !HeapCensus.startSampling() {
    print("sampling is unavailable here (\(HeapCensus.availability))")
    exit(1)
}
if HeapCensus.isRunning {
    // The census must see objects in this (release) build: one kept alive (in a global, so
    // on the heap) across the check.
    objectSink = Payload(-1)
    let seen = HeapCensus.liveObjectCount
    objectSink = nil
    guard seen > 0 else {
        print("the census is on but recorded no object: the counts would measure nothing")
        exit(1)
    }
    // Its creation site too: the figures include reading two frames and the site lookup.
    objectSink = Payload(-2)
    let site = objectSink.flatMap { HeapCensus.creationSite(of: $0) }
    objectSink = nil
    guard site != nil else {
        print("the census recorded no creation site: the counts would not include it")
        exit(1)
    }
}
loop.run(count: count)
print(
    "census \(arguments[1]) \(loop.rawValue) \(count),"
        + " \(HeapCensus.liveObjectCount) live census objects,"
        + " \(HeapCensus.liveSampleCount) live samples")
