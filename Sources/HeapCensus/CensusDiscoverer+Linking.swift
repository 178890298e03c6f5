import RetainGraph

/// The census's discoverer, handed to RetainGraph's `DiscoveryRegistry.shared` when it is
/// created (through RetainGraph's `CLinkedModules` door: a weak symbol, since RetainGraph does
/// not depend on HeapCensus). So every watcher of a program that links HeapCensus uses the
/// census, whether it was started by ``HeapCensus/start()``, by `RETAINGRAPH_CENSUS=1`, or by
/// itself in a test process.
///
/// Not API: called by RetainGraph only. Returns a retained `LinkedDiscoverer`.
@_cdecl("rg_linked_census_discoverer")
public func _retainGraphLinkedCensusDiscoverer() -> UnsafeMutableRawPointer? {
    let box = LinkedDiscoverer(CensusDiscoverer(), name: CensusDiscoverer.name, order: .heapCensus)
    return Unmanaged.passRetained(box).toOpaque()
}
