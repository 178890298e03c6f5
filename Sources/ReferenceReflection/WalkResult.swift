import RetainGraph

/// What one reflection walk found: nodes, discovered references and what it could not read.
///
/// The result holds no objects: every object the walk retained was released when the walk
/// returned. Objects the ``/RetainGraph/LiveGraph`` knows keep their ``/RetainGraph/ObjectID``; the others have fresh
/// identities at or above ``ReferenceWalker/discoveredIDBase``, which live graphs never reach.
///
/// ```swift
/// let result = ReferenceWalker(graph: graph).walk(from: [owner])
/// for reference in result.references { print(reference.from, reference.role, reference.to) }
/// for diagnostic in result.diagnostics { print(diagnostic) }
/// ```
public struct WalkResult: Sendable {
    /// A node for every object, closure and captured `var` the walk reached, roots included.
    public let nodes: [Node]
    /// The references the walk discovered, each with `isDiscovered == true`.
    public let references: [Reference]
    /// What the walk could not read, and why; empty when everything reached was readable.
    public let diagnostics: [WalkDiagnostic]
    /// The identities of the roots, in the order they were given (unreadable roots omitted).
    public let rootIDs: [ObjectID]
    /// How many objects had their contents read.
    public let objectsRead: Int
    /// Whether the walk ran to the end, rather than stopping at a limit.
    public let isComplete: Bool
    /// The nodes that are the storage of a lock (the package's `Locked`), which the
    /// reflection discoverer looks through.
    let lockStorages: Set<ObjectID>

    /// Creates a result. Walks make their own; use this for synthetic results in tests.
    public init(
        nodes: [Node], references: [Reference], diagnostics: [WalkDiagnostic],
        rootIDs: [ObjectID], objectsRead: Int, isComplete: Bool
    ) {
        self.init(
            nodes: nodes, references: references, diagnostics: diagnostics, rootIDs: rootIDs,
            objectsRead: objectsRead, isComplete: isComplete, lockStorages: [])
    }

    init(
        nodes: [Node], references: [Reference], diagnostics: [WalkDiagnostic],
        rootIDs: [ObjectID], objectsRead: Int, isComplete: Bool, lockStorages: Set<ObjectID>
    ) {
        self.nodes = nodes
        self.references = references
        self.diagnostics = diagnostics
        self.rootIDs = rootIDs
        self.objectsRead = objectsRead
        self.isComplete = isComplete
        self.lockStorages = lockStorages
    }

    /// The node with identity `id`, if the walk reached it.
    ///
    /// - Complexity: O(*n*) in the number of nodes.
    public func node(_ id: ObjectID) -> Node? { nodes.first { $0.id == id } }

    /// The discovered references held by `id`.
    ///
    /// - Complexity: O(*r*) in the number of references.
    public func references(from id: ObjectID) -> [Reference] {
        references.filter { $0.from == id }
    }
}

/// Something a walk could not read, so that a report can say "undeclared edges may be missing
/// here" instead of staying silent.
public struct WalkDiagnostic: Hashable, Sendable, CustomStringConvertible {
    /// The kinds of things a walk can fail to read.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// The platform or runtime lacks what the walker needs; only declared edges are known.
        case runtimeUnsupported
        /// A type was compiled without reflection metadata: its stored properties are invisible.
        case missingMetadata
        /// A metadata kind, layout or reference storage the walker does not know; not read.
        case unrecognisedMetadata
        /// A closure context whose captures could not all be decoded (generic captures, missing
        /// capture descriptors); the captures after the first unreadable one are not read.
        case undecodableClosure
        /// A reference whose target cannot be identified safely, such as an `unowned(unsafe)`
        /// one to an object the walk did not otherwise reach.
        case unresolvedTarget
        /// An `unowned` reference to an object that was already deinitialised.
        case deallocatedTarget
        /// A Core Foundation or C++ foreign object, which is not followed.
        case foreignObject
        /// A limit in ``WalkLimits`` cut the walk short.
        case limitReached
    }

    /// What went wrong.
    public let kind: Kind
    /// The type being read, when known (empty otherwise).
    public let typeName: String
    /// A human-readable explanation, naming the property path when there is one.
    public let detail: String

    /// Creates a diagnostic.
    public init(kind: Kind, typeName: String, detail: String) {
        self.kind = kind
        self.typeName = typeName
        self.detail = detail
    }

    /// A one-line description, such as `missingMetadata MyApp.Owner: stored properties …`.
    public var description: String {
        typeName.isEmpty ? "\(kind.rawValue): \(detail)" : "\(kind.rawValue) \(typeName): \(detail)"
    }
}
