import HeapCensus
import Testing

/// An object your code makes at one line, reached through more than one caller.
final class RoutedParcel {
    let route: Int
    init(route: Int) { self.route = route }
}

/// The one line that makes every parcel.
@inline(never) func makeRoutedParcel(_ route: Int) -> RoutedParcel { RoutedParcel(route: route) }

/// Two callers of that line with the same shape, so that their frames (and the allocation's
/// frames below them) lie at the same addresses: only their return addresses differ.
@inline(never) func routeParcelNorth() -> RoutedParcel { makeRoutedParcel(1) }
@inline(never) func routeParcelSouth() -> RoutedParcel { makeRoutedParcel(2) }

/// Objects made at the same line through different callers, alternately, on one thread: the
/// census remembers the thread's recent creation stacks to avoid walking them again, and a
/// stack it remembers must never stand for another one that only differs further out.
@Suite struct CreationStackCallerTests {
    @Test("Objects made at one line through two callers, alternately, keep each caller's stack")
    func alternatingCallersKeepTheirOwnStacks() throws {
        #expect(HeapCensus.start() || HeapCensus.isRunning)
        var parcels: [RoutedParcel] = []
        for _ in 0..<16 {
            parcels.append(routeParcelNorth())
            parcels.append(routeParcelSouth())
        }
        var stacks: [Int: Set<[UInt]>] = [:]
        for parcel in parcels {
            let site = try #require(HeapCensus.creationSite(of: parcel))
            stacks[parcel.route, default: []].insert(site.returnAddresses)
        }
        let north = try #require(stacks[1])
        let south = try #require(stacks[2])
        // One stack per caller, the same for every parcel it made, and not the other's.
        #expect(north.count == 1, "\(north)")
        #expect(south.count == 1, "\(south)")
        #expect(north.isDisjoint(with: south), "\(north) \(south)")
        // They share the line that made them and differ only further out.
        #expect(north.first?.first == south.first?.first)
        withExtendedLifetime(parcels) {}
    }
}
