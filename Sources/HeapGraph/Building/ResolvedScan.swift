import ObjectGraph
import RuntimeLayouts

/// The first half of the one graph builder: a scan's objects read out of its columns, their
/// references resolved and their dynamic values decoded, so that the scan can go before the
/// graph is built.
///
/// Everything the builder needs of the scan is here; the rest of the build
/// (``HeapSnapshot/init(resolved:roots:process:limitations:statistics:creationTraces:)``)
/// reads nothing of it. When the scan was handed over whole (nobody else holds its columns),
/// each of its columns is freed as soon as it has been read: an attach of five million objects
/// never holds the scan's columns and the graph's together.
///
/// ```swift
/// var resolved = ResolvedScan(scanner.scan(blocks: blocks, sizes: sizes))
/// if decodingFailed { resolved.decodeDynamicValuesAgain() }
/// let heap = HeapSnapshot(resolved: resolved, roots: roots, process: process,
///                         limitations: limitations, statistics: statistics)
/// ```
package struct ResolvedScan {
    var count: Int
    var addresses: [UInt]
    var retainCounts: [UInt32]
    var sizes: [UInt32]
    var index: AddressIndex
    var objectKinds: [HeapObjectKind]
    /// Per object, its type: a layout's index, or past the layouts one per kind of object read
    /// without a layout.
    var typeIndex: [Int32]
    var layouts: [CompiledLayout]
    var typeNames: [String]
    var nodeKinds: [CompactGraph.NodeKind]
    var nodeTypes: [UInt32]
    var builder: CompactGraph.Builder
    var edges: EdgeColumns
    /// The objects reached as boxes of values held out of line.
    var boxes: Set<Int32>
    /// The scan, kept for its dynamic values until the build takes this apart.
    private var scan: HeapScan?
    /// The builder and the number of edges before the dynamic values were decoded.
    private let beforeDecoding: (builder: CompactGraph.Builder, edges: Int)

    /// Reads `scan`'s objects and resolves its references and dynamic values.
    ///
    /// - Complexity: O(*n* + *r*) for *n* objects and *r* references.
    package init(_ scan: consuming HeapScan) {
        // Whether this value holds the only reference to the columns: then they are freed
        // once read (a caller that keeps the scan keeps them whole).
        let ownsColumns = isKnownUniquelyReferenced(&scan.columns)
        let columns = scan.columns
        let count = columns.objectCount
        var objects = columns.objectArrays(releasing: ownsColumns)
        let addresses = objects.addresses
        let retainCounts = objects.retainCounts
        let sizes = objects.sizes
        let objectKinds = objects.kinds
        // Taken out, not copied: it is changed below.
        var typeIndex: [Int32] = []
        swap(&typeIndex, &objects.layoutIndex)
        let index = AddressIndex(addresses)
        var builder = CompactGraph.Builder()
        builder.roles = scan.roles  // the table's role numbers stay valid

        // Types: the layouts, then one per kind of object read without a layout.
        let layouts = scan.layouts
        let typeNames =
            layouts.map(\.typeName)
            + HeapObjectKind.allCases.map {
                $0 == .instance ? "object (layout not compiled when read)" : $0.genericName
            }
        let typeNumbers = typeNames.map { builder.intern($0) }
        let typeKinds =
            layouts.map { $0.isTimer ? CompactGraph.NodeKind.timer : $0.kind.nodeKind }
            + HeapObjectKind.allCases.map(\.nodeKind)
        var nodeKinds = [CompactGraph.NodeKind](repeating: .object, count: count)
        var nodeTypes = [UInt32](repeating: 0, count: count)
        for node in 0..<count {
            if typeIndex[node] < 0 {
                typeIndex[node] = Int32(layouts.count) + Int32(objectKinds[node].rawValue)
            }
            nodeKinds[node] = typeKinds[Int(typeIndex[node])]
            nodeTypes[node] = typeNumbers[Int(typeIndex[node])]
        }

        // References to objects, roles that depend on the target named after it.
        var naming = RoleNaming(roles: scan.roles)
        var edges = HeapSnapshot.resolveReferences(
            columns, index: index, kinds: nodeKinds, naming: &naming, builder: &builder,
            typeNames: typeNames, typeIndex: typeIndex, inPlace: ownsColumns)
        if ownsColumns { columns.releaseReferences() }
        beforeDecoding = (builder, edges.sources.count)
        boxes = HeapSnapshot.decodeDynamicValues(
            scan, index: index, kinds: nodeKinds, builder: &builder, typeNames: typeNames,
            typeIndex: typeIndex, into: &edges)
        self.count = count
        self.addresses = addresses
        self.retainCounts = retainCounts
        self.sizes = sizes
        self.index = index
        self.objectKinds = objectKinds
        self.typeIndex = typeIndex
        self.layouts = layouts
        self.typeNames = typeNames
        self.nodeKinds = nodeKinds
        self.nodeTypes = nodeTypes
        self.builder = builder
        self.edges = edges
        self.scan = scan
    }

    /// Decodes the dynamic values again, as if the first decoding had never run: for a reader
    /// whose metadata source failed while decoding and now answers nothing, so that the graph
    /// is the one it would have built with that source failed from the start.
    package mutating func decodeDynamicValuesAgain() {
        guard let scan else { return }
        builder = beforeDecoding.builder
        let resolvedEdges = beforeDecoding.edges
        edges.removeAll { edge, _, _ in edge >= resolvedEdges }
        boxes = HeapSnapshot.decodeDynamicValues(
            scan, index: index, kinds: nodeKinds, builder: &builder, typeNames: typeNames,
            typeIndex: typeIndex, into: &edges)
    }

    /// Lets the scan go: its dynamic values' copies are no longer needed.
    mutating func releaseScan() { scan = nil }
}
