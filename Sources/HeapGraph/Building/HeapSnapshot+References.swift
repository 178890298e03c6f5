import ObjectGraph
import RetainGraphUtilities
import RuntimeLayouts

extension HeapSnapshot {
    /// Resolves the words the scan read to object numbers, keeping the references whose target
    /// is an object of the scan, with their flags and roles as the graph stores them.
    ///
    /// One tight loop of independent hash lookups: the processor overlaps their cache misses,
    /// which lookups interleaved with the scan's own reads could not. It writes into buffers and
    /// keeps the common role (one that does not depend on the target) as the scan recorded it:
    /// appending to arrays and calling out per reference cost a debug build twice as much.
    ///
    /// With `inPlace` (the caller holds the only reference to `columns`), the kept references'
    /// holders, flags and roles are written over the scan's own columns (each reference is
    /// read before any is written at its place or after), and each column is freed as soon as
    /// its array is made: the peak holds the scan's columns and one new column (21 bytes a
    /// reference), where separate buffers held 34. Without it, the scan's columns are left as
    /// they were.
    static func resolveReferences(
        _ columns: ScanColumns, index: AddressIndex, kinds: [CompactGraph.NodeKind],
        naming: inout RoleNaming, builder: inout CompactGraph.Builder, typeNames: [String],
        typeIndex: [Int32], inPlace: Bool = false
    ) -> EdgeColumns {
        let count = columns.referenceCount
        let read = columns.storage.pointee
        let targets = UnsafeMutablePointer<UInt32>.allocate(capacity: max(count, 1))
        let sources =
            inPlace
            ? read.sources.base : UnsafeMutablePointer<UInt32>.allocate(capacity: max(count, 1))
        let flags =
            inPlace
            ? read.kinds.base : UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
        let roles =
            inPlace
            ? read.roles.base : UnsafeMutablePointer<UInt32>.allocate(capacity: max(count, 1))
        // The graph's flags for each ownership byte (0–4) of a reference found in the heap.
        var flagsOfKind = [UInt8](repeating: 0, count: 8)
        for byte in 0..<8 {
            flagsOfKind[byte] = CompactGraph.flags(Ownership(byte: UInt8(byte)), .heap)
        }
        let capturedRole = naming.capturedRole ?? .max
        var kept = 0
        flagsOfKind.withUnsafeBufferPointer { flagsOfKind in
            var edge = 0
            while edge < count {
                let target = index.rawIndex(of: read.words.base[edge])
                if target >= 0 {
                    let kind = read.kinds.base[edge]
                    var role = read.roles.base[edge]
                    if kind & ScanColumns.functionContextBit != 0 || role == capturedRole {
                        let type = typeIndex[Int(target)]
                        role = naming.number(
                            role, isFunctionContext: kind & ScanColumns.functionContextBit != 0,
                            targetType: type, targetKind: kinds[Int(target)],
                            targetName: { typeNames[Int(type)] }, builder: &builder)
                    }
                    sources[kept] = read.sources.base[edge]
                    targets[kept] = UInt32(truncatingIfNeeded: target)
                    flags[kept] = flagsOfKind[Int(kind & 7)]
                    roles[kept] = role
                    kept += 1
                }
                edge += 1
            }
        }
        // Each buffer or column freed as soon as its array holds it: the peak is the buffers
        // and one array, not the buffers and every array.
        if inPlace { columns.releaseReferenceColumn(.words) }
        var edges = EdgeColumns()
        edges.sources = Array(UnsafeBufferPointer(start: sources, count: kept))
        if inPlace { columns.releaseReferenceColumn(.sources) } else { sources.deallocate() }
        edges.targets = Array(UnsafeBufferPointer(start: targets, count: kept))
        targets.deallocate()
        edges.flags = Array(UnsafeBufferPointer(start: flags, count: kept))
        if inPlace { columns.releaseReferenceColumn(.kinds) } else { flags.deallocate() }
        edges.roles = Array(UnsafeBufferPointer(start: roles, count: kept))
        if inPlace { columns.releaseReferenceColumn(.roles) } else { roles.deallocate() }
        return edges
    }
}

/// Edge columns, as the compact graph stores them.
struct EdgeColumns {
    var sources: [UInt32] = []
    var targets: [UInt32] = []
    var flags: [UInt8] = []
    var roles: [UInt32] = []

    mutating func append(source: UInt32, target: UInt32, flags: UInt8, role: UInt32) {
        sources.append(source)
        targets.append(target)
        self.flags.append(flags)
        roles.append(role)
    }

    /// Removes the edges `isRemoved` is true of (given each edge's index, source and role),
    /// keeping the others in order, in place.
    mutating func removeAll(
        where isRemoved: (_ edge: Int, _ source: UInt32, _ role: UInt32) -> Bool
    ) {
        var kept = 0
        for edge in sources.indices where !isRemoved(edge, sources[edge], roles[edge]) {
            if kept != edge {
                sources[kept] = sources[edge]
                targets[kept] = targets[edge]
                flags[kept] = flags[edge]
                roles[kept] = roles[edge]
            }
            kept += 1
        }
        let removed = sources.count - kept
        sources.removeLast(removed)
        targets.removeLast(removed)
        flags.removeLast(removed)
        roles.removeLast(removed)
    }
}

/// Roles that depend on the target, named after it: a word read conservatively where a
/// capture is expected (a block's, an undecodable closure context's) becomes `captures Owner`;
/// a closure whose context is its only captured object becomes a capture of that object
/// (`ReferenceRole.capturing(_:)`).
struct RoleNaming {
    let roles: InternedRoles
    /// The number of ``/RuntimeLayouts/ObjectLayout/targetNamedCapture`` in the table, if any
    /// slot has it.
    let capturedRole: UInt32?
    /// Named roles, by table role (high half) and target type (low half).
    private var named: [UInt64: UInt32] = [:]

    init(roles: InternedRoles) {
        self.roles = roles
        capturedRole = roles.number(of: ObjectLayout.targetNamedCapture)
    }

    /// The graph's number of table role `role`, for a reference to an object of type
    /// `targetType` (named `targetName`, of kind `targetKind`).
    mutating func number(
        _ role: UInt32, isFunctionContext: Bool, targetType: Int32,
        targetKind: CompactGraph.NodeKind, targetName: () -> String,
        builder: inout CompactGraph.Builder
    ) -> UInt32 {
        let dependsOnTarget =
            (isFunctionContext && targetKind != .closure) || role == capturedRole
        guard dependsOnTarget else { return role }
        let key = UInt64(role) << 32 | UInt64(UInt32(bitPattern: targetType))
        if let known = named[key] { return known }
        let name = targetKind == .closure ? "a closure" : TypeNames.withoutModule(targetName())
        let number = builder.intern(
            role == capturedRole ? .capture(name: name) : roles[role].capturing(name))
        named[key] = number
        return number
    }
}
