// The adapter between the sampled mode and creation sites, and the census's snapshot and
// layout types (which issue 22 rewrites): every use of LayoutRegistry and HeapSnapshot by the
// code of issue 27 is in this file.

/// The census's names for the types of sampled blocks.
enum CensusTypeNames {
    /// The name of a sampled block's type: the census's layout name for an object whose
    /// metadata is known, a fixed name for the other kinds.
    static func name(kind: SampledHeap.Kind, metadata: UInt) -> String {
        switch kind {
        case .rawMemory: return "raw memory (UnsafeMutableRawPointer.allocate)"
        case .task: return "Task"
        case .object:
            guard metadata != 0, let index = LayoutRegistry.shared.index(ofMetadata: metadata)
            else { return "(type not yet known)" }
            let layouts = LayoutRegistry.shared.snapshot().layouts
            return Int(index) < layouts.count ? layouts[Int(index)].typeName : "(unnamed type)"
        }
    }
}

extension HeapSnapshot {
    /// Where the object `id` was made, if it is still alive and the census recorded its site.
    ///
    /// - Parameter id: An object of this snapshot.
    /// - Returns: Its ``CreationSite``, or nil.
    /// - Complexity: O(1).
    public func creationSite(of id: HeapObjectID) -> CreationSite? {
        let index = Int(id.rawValue)
        guard index >= 0, index < objectCount else { return nil }
        return HeapCensus.creationSite(ofObjectAt: address(of: index))
    }
}
