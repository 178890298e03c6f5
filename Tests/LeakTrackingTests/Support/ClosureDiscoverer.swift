import RetainGraph

/// A discoverer made of a closure, for tests that add references of their own.
struct ClosureDiscoverer: ReferenceDiscoverer {
    let body: @Sendable (inout GraphSnapshot.Builder, DiscoveryRequest) -> Void

    init(_ body: @escaping @Sendable (inout GraphSnapshot.Builder, DiscoveryRequest) -> Void) {
        self.body = body
    }

    func discoverReferences(
        into additions: inout GraphSnapshot.Builder, for request: DiscoveryRequest
    ) {
        body(&additions, request)
    }
}
