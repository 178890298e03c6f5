import HeapCensus
import _CreationStackLibrary

/// A leaf object, one per distinct creation stack the run makes (freed at once: what counts
/// is how many stacks the census has seen, not how many objects live).
final class Leaf {
    var depth: Int
    init(depth: Int) { self.depth = depth }
}

/// Objects made so far, so that the recursion's work is not optimized away.
nonisolated(unsafe) var leavesMade = 0

/// Makes a `Leaf` at the end of a call path chosen by `path`'s base-4 digits, one level per
/// digit, down to `levels` levels: each digit picks one of four calls (four return addresses),
/// so `4^levels` paths end in `4^levels` distinct creation stacks. No call is a tail call (the
/// count after it), so every level keeps its frame.
@inline(never)
func descend(_ path: Int, _ levels: Int) -> Int {
    if levels == 0 {
        let leaf = Leaf(depth: path & 1)
        leavesMade += 1
        return leaf.depth
    }
    let next = path >> 2
    var result: Int
    switch path & 3 {
    case 0: result = descend(next, levels - 1)
    case 1: result = descend(next, levels - 1)
    case 2: result = descend(next, levels - 1)
    default: result = descend(next, levels - 1)
    }
    leavesMade += 1
    return result
}

/// Makes more distinct creation stacks than a 16-bit depot holds, then a `Widget` through the
/// library (three calls deep) whose site must still name the making line, as `SiteRun` prints
/// it: `line=`, `chosen=`, then what the census kept (`sites=`, `dropped=`, `depth=`).
enum ManyStacksRun {
    /// - Parameter count: How many distinct call paths to allocate at: paths `0..<count`, at
    ///   depths from 8 to 10 levels (up to 4^10 paths each), so recursion depth varies too.
    static func run(count: Int) {
        guard HeapCensus.start() else {
            print("census unavailable")
            return
        }
        var made = 0
        for levels in 8...10 where made < count {
            let paths = min(1 << (2 * levels), count - made)
            for path in 0..<paths { _ = descend(path, levels) }
            made += paths
        }
        print("paths=\(made) leaves=\(leavesMade)")
        let line = #line + 1
        let widget = WidgetFactory.make()
        let site = HeapCensus.creationSite(of: widget)
        print("line=\(line)")
        print("chosen=\(site?.userLocation(excludingModules: ["_CreationStackLibrary"]) ?? "none")")
        print("depth=\(site?.returnAddresses.count ?? 0)")
        print(
            "sites=\(HeapCensus.creationSiteCount) shortened=\(HeapCensus.creationSitesShortened)"
                + " dropped=\(HeapCensus.creationSitesDropped)")
        print("site-bytes=\(HeapCensus.creationSiteBytes)")
        withExtendedLifetime(widget) {}
    }
}
