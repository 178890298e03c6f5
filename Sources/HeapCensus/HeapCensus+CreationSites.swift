/// Where each live object was made.
///
/// While the census records, it keeps for every object the ``CreationSite`` it was made at: its
/// creation stack, up to ``CreationSite/maximumDepth`` return addresses read from frame
/// pointers inside the allocation (no unwinder, no lock, no allocation), each distinct stack
/// stored once in a depot whose number for it rides in unused bits of the census's own entry
/// for the object (17 bits on x86_64, 16 elsewhere), so a stack costs no memory per object.
/// The depot's memory is bounded (about 17 MB at most on x86_64), and so is its count of
/// stacks: a long process can make more distinct stacks than that, mostly because of frames
/// far from the allocation (recursion depths, call paths), so past the bound a new stack is
/// kept at its innermost frames, which it shares with many others (see
/// ``creationSiteCount``).
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
    ///   ``start()``, or the depot had no room even for its innermost frame) or could not read
    ///   where it was made.
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

    /// How many creation stacks the census's depot holds.
    ///
    /// The depot numbers at most 131,071 stacks on x86_64 (65,535 elsewhere), in tiers: whole
    /// stacks (up to ``CreationSite/maximumDepth`` frames) take the first three quarters of the
    /// numbers; past them, a new stack is kept at its innermost 8 frames (the number of every
    /// other stack that shares them, once kept), past seven eighths at its innermost 4, past
    /// fifteen sixteenths at its innermost 2, then 1. Shorter stacks repeat more than whole
    /// ones (the project's own test suite, one process, makes about 103,000 distinct whole
    /// stacks, half as many distinct 8-frame ones, a sixth as many of 4 frames and 1,000 of
    /// 1), so an object made late in a long process still keeps the innermost frames of where
    /// it was made, which name its line unless that line lies further out than the frames
    /// kept. Numbers are never reused.
    public static var creationSiteCount: Int { CensusDoor.stackCount }

    /// New creation stacks kept at their innermost frames only, because the numbers for whole
    /// stacks were taken (see ``creationSiteCount``).
    ///
    /// Counted once for each thread that met such a stack while it was not among that thread's
    /// few most recent stacks, not per object.
    public static var creationSitesShortened: Int { CensusDoor.stacksShortened }

    /// New creation stacks not kept at all, not even their innermost frame, because every
    /// tier's numbers were taken; objects made there are recorded without a site.
    ///
    /// Counted as ``creationSitesShortened`` is. The last numbers (8,192 on x86_64, 4,096
    /// elsewhere) go to stacks cut to their innermost 2 frames, then 1: the project's whole
    /// test suite, one process, makes about 7,000 distinct 2-frame stacks and 1,000 1-frame
    /// ones, so this stays 0 in all but very long processes.
    public static var creationSitesDropped: Int { CensusDoor.stacksDropped }

    /// The memory the stack depot uses now (pages touched), in bytes.
    ///
    /// At most about 17 MB on x86_64 (8.5 MB elsewhere): 14 MB of frames (every tier's
    /// numbers at its depth), 2 MB of per-stack headers and 1 MB of index.
    public static var creationSiteBytes: Int { CensusDoor.stackBytes }
}
