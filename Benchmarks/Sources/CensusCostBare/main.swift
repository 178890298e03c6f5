// CensusCostBare: the allocation loops of CensusSupport in an executable that does not link
// HeapCensus (glibc's malloc and free are called directly): the baseline of
// Scripts/census-cost.sh.
//
//   CensusCostBare LOOP COUNT        LOOP: object | array
import CensusSupport

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
if arguments.count == 3, let loop = AllocationLoop(rawValue: arguments[1]),
    let count = Int(arguments[2]), count >= 0
{
    loop.run(count: count)
    print("bare \(loop.rawValue) \(count)")
} else {
    print("usage: CensusCostBare object|array COUNT")
    exit(2)
}
