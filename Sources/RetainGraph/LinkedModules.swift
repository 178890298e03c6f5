internal import CLinkedModules

/// A discoverer handed over by a module RetainGraph does not depend on, through the
/// `CLinkedModules` door: the module defines a C entry point that returns one of these, retained.
package final class LinkedDiscoverer: Sendable {
    package let discoverer: any ReferenceDiscoverer
    package let name: String
    package let order: DiscoveryOrder

    package init(_ discoverer: any ReferenceDiscoverer, name: String, order: DiscoveryOrder) {
        self.discoverer = discoverer
        self.name = name
        self.order = order
    }
}

/// The discoverers of optional modules linked into this binary (today the heap census), so
/// that every watcher uses them however they were turned on: by a call, by an environment
/// variable read before `main`, or by the census starting itself in a test process.
enum LinkedModules {
    /// Registers the linked modules' discoverers in `registry`.
    static func registerDiscoverers(in registry: DiscoveryRegistry) {
        guard let opaque = rg_census_discoverer_if_linked() else { return }
        let box = Unmanaged<LinkedDiscoverer>.fromOpaque(opaque).takeRetainedValue()
        registry.register(box.discoverer, named: box.name, order: box.order)
    }
}
