import HeapGraph
import RuntimeLayouts

// Where the sampled mode and creation sites meet the census's snapshot and the one layout
// registry.

/// The census's names for the types of sampled blocks.
enum CensusTypeNames {
    /// The name of a sampled block's type: the census's layout name for an object whose
    /// metadata is known, a fixed name for the other kinds.
    static func name(kind: SampledHeap.Kind, metadata: UInt) -> String {
        switch kind {
        case .rawMemory: return "raw memory (UnsafeMutableRawPointer.allocate)"
        case .task: return "Task"
        case .object:
            guard metadata != 0, let layout = LayoutRegistry.shared.layout(ofMetadata: metadata)
            else { return "(type not yet known)" }
            return layout.typeName
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
        guard process.isThisProcess, contains(id) else { return nil }
        return HeapCensus.creationSite(ofObjectAt: self[id].address)
    }
}
