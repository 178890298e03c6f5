// DispatchCount: runs one dispatch variant a fixed number of times, for instruction counting
// under `valgrind --tool=callgrind` (Scripts/callgrind.sh runs it at N and 2N fires and takes
// the difference, so start-up and set-up costs cancel out).
//
//   DispatchCount list
//   DispatchCount VARIANT COUNT
import DispatchVariants

#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "list" {
    for variant in DispatchVariant.allCases {
        print(variant.rawValue)
    }
} else if arguments.count == 3, let variant = DispatchVariant(rawValue: arguments[1]),
    let count = Int(arguments[2]), count >= 0
{
    let fixture = DispatchFixture(variant)
    fixture.run(times: count)
    print("\(variant.rawValue) \(fixture.ticker.count) calls")
    if fixture.ticker.count != count {
        exit(1)
    }
} else {
    let names = DispatchVariant.allCases.map(\.rawValue).joined(separator: ", ")
    print("usage: DispatchCount list | DispatchCount VARIANT COUNT\nvariants: \(names)")
    exit(2)
}
