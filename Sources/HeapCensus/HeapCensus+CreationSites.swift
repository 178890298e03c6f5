/// Where each live object was made.
///
/// While the census records, it keeps for every object the ``CreationSite`` it was made at: two
/// return addresses read from frame pointers inside the allocation (no unwinding), deduplicated
/// into a table of at most 65,535 sites whose 16-bit number rides in unused bits of the census's
/// own entry for the object, so a site costs no memory per object.
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
    ///   ``start()``, or the site table was full) or could not read where it was made.
    /// - Complexity: O(1): one lookup in the census's table, under one stripe's lock.
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
        CensusDoor.site(ofLiveBlockAt: address).map {
            CreationSite(allocatingCaller: $0.caller, callerOfCaller: $0.above)
        }
    }

    /// How many distinct creation sites the census has seen, and the memory their table uses.
    ///
    /// The table holds at most 65,535 sites; objects made at further sites are recorded
    /// without one (``creationSitesDropped`` counts them).
    public static var creationSiteCount: Int { CensusDoor.siteCount }

    /// Objects recorded without a creation site because the site table was full.
    public static var creationSitesDropped: Int { CensusDoor.sitesDropped }

    /// The memory the creation-site table uses now (pages touched), in bytes.
    public static var creationSiteBytes: Int { CensusDoor.siteBytes }
}
