/// Where each live object was made.
///
/// While the census records, it keeps for every object the ``CreationSite`` it was made at: its
/// creation stack, up to ``CreationSite/maximumDepth`` return addresses read from frame
/// pointers inside the allocation (no unwinder, no lock, no allocation), each distinct stack
/// stored once in a depot of at most 65,535 stacks whose 16-bit number rides in unused bits of
/// the census's own entry for the object, so a stack costs no memory per object.
extension HeapCensus {
    /// Where `object` was made, if the census recorded it.
    ///
    /// ```swift
    /// HeapCensus.start()
    /// let owner = Owner()
    /// let site = HeapCensus.creationSite(of: owner)
    /// print(site?.description ?? "?")   // "OwnerTests.swift:14"
    /// ```
    ///
    /// - Parameter object: A live object.
    /// - Returns: Its site, or nil when the census did not record the object (allocated before
    ///   ``start()``, or the stack depot was full) or could not read where it was made.
    /// - Complexity: O(1): one lookup in the census's table, under one stripe's lock, and a
    ///   copy of at most ``CreationSite/maximumDepth`` addresses.
    public static func creationSite(of object: AnyObject) -> CreationSite? {
        creationSite(ofObjectAt: UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
    }

    /// Where the live object at `address` was made, if the census recorded it.
    ///
    /// Safe with any address: an address the census does not know as a live block returns nil.
    /// If the object there died and another took its memory, the answer is the newer one's.
    ///
    /// - Parameter address: The object's address.
    /// - Returns: Its site, or nil.
    /// - Complexity: O(1).
    public static func creationSite(ofObjectAt address: UInt) -> CreationSite? {
        CensusDoor.stack(ofLiveBlockAt: address).map { CreationSite(returnAddresses: $0) }
    }

    /// How many distinct creation stacks the census has seen.
    ///
    /// The depot holds at most 65,535 stacks; objects made at further stacks are recorded
    /// without one (``creationSitesDropped`` counts them).
    public static var creationSiteCount: Int { CensusDoor.stackCount }

    /// Objects recorded without a creation stack because the depot was full.
    public static var creationSitesDropped: Int { CensusDoor.stacksDropped }

    /// The memory the stack depot uses now (pages touched), in bytes.
    public static var creationSiteBytes: Int { CensusDoor.stackBytes }
}
