import RetainGraph

/// A discoverer made of a closure, for tests that add references of their own.
struct ClosureDiscoverer: ReferenceDiscoverer {
    let body: @Sendable (inout GraphSnapshot, DiscoveryRequest) -> Void

    init(_ body: @escaping @Sendable (inout GraphSnapshot, DiscoveryRequest) -> Void) {
        self.body = body
    }

    func discoverReferences(into snapshot: inout GraphSnapshot, for request: DiscoveryRequest) {
        body(&snapshot, request)
    }
}
