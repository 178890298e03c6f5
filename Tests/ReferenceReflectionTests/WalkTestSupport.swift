import ReferenceReflection
import RetainGraph

/// A walk over fixtures registered in a private graph, with lookups by object and name.
struct Walked {
    let result: WalkResult
    let graph: LiveGraph

    /// Walks from `roots`, after registering `roots` and `known` in a fresh private graph so
    /// the fixtures have identities the assertions can use.
    init(_ roots: [AnyObject], known: [AnyObject] = [], limits: WalkLimits = .default) {
        graph = LiveGraph()
        for object in roots + known { graph.register(object) }
        result = ReferenceWalker(graph: graph, limits: limits).walk(from: roots)
    }

    func id(_ object: AnyObject) -> ObjectID {
        guard let id = graph.id(of: object) else { fatalError("fixture not registered") }
        return id
    }

    /// The references from `holder` (an object or a node id) whose role carries `name`.
    func references(from holder: ObjectID, named name: String) -> [Reference] {
        result.references(from: holder).filter { $0.role.detail == name }
    }

    func references(from holder: AnyObject, named name: String) -> [Reference] {
        references(from: id(holder), named: name)
    }

    /// The single reference from `holder` named `name`, if there is exactly one.
    func reference(from holder: AnyObject, named name: String) -> Reference? {
        let found = references(from: holder, named: name)
        return found.count == 1 ? found[0] : nil
    }

    /// Whether `holder` holds `target` under `name` with `kind`.
    func holds(_ holder: AnyObject, _ target: AnyObject, named name: String, _ kind: Ownership)
        -> Bool
    {
        references(from: holder, named: name).contains {
            $0.to == id(target) && $0.ownership == kind
        }
    }

    /// Whether `holder` reaches `target` through its reference named `name` and the containers
    /// behind it (a collection's storage, a box the compiler made for a value held out of
    /// line), the last reference having `kind`: `.array` ⇒ `[Leaf] storage` ⇒ `Leaf`.
    func reaches(
        _ holder: AnyObject, _ target: AnyObject, through name: String, _ kind: Ownership
    ) -> Bool {
        var frontier = references(from: holder, named: name)
        var seen = Set<ObjectID>()
        while let reference = frontier.popLast() {
            if reference.to == id(target) { return reference.ownership == kind }
            guard let node = node(reference.to), node.isContainer,
                seen.insert(reference.to).inserted
            else { continue }
            frontier += result.references(from: reference.to)
        }
        return false
    }

    /// The references out of the closure stored in `holder`'s property `property`.
    func closureCaptures(of holder: AnyObject, property: String) -> [Reference] {
        references(from: holder, named: property).flatMap { closure in
            result.references(from: closure.to)
        }
    }

    /// The node a reference points to.
    func node(_ id: ObjectID) -> Node? { result.node(id) }

    func diagnostics(_ kind: WalkDiagnostic.Kind) -> [WalkDiagnostic] {
        result.diagnostics.filter { $0.kind == kind }
    }
}

extension Walked {
    /// Every reference reachable from the closure stored in `holder.property`, following
    /// closure and captured-`var` nodes (but not objects).
    func referencesInsideClosure(of holder: AnyObject, property: String) -> [Reference] {
        var found: [Reference] = []
        var frontier = references(from: holder, named: property).map(\.to)
        var seen = Set(frontier)
        while let next = frontier.popLast() {
            for reference in result.references(from: next) {
                found.append(reference)
                let isInner =
                    node(reference.to).map { $0.kind == .closure || $0.isContainer } ?? false
                if isInner, seen.insert(reference.to).inserted { frontier.append(reference.to) }
            }
        }
        return found
    }

    /// Whether the closure in `holder.property` reaches `target` with `kind`.
    func closure(
        of holder: AnyObject, property: String, reaches target: AnyObject,
        _ kind: Ownership
    ) -> Bool {
        referencesInsideClosure(of: holder, property: property).contains {
            $0.to == id(target) && $0.ownership == kind
        }
    }
}

extension Walked: CustomReflectable, CustomStringConvertible {
    // Keeps failure messages short and avoids reflecting the graph's internals.
    var customMirror: Mirror { Mirror(self, children: [:]) }

    var description: String {
        let lines = result.references.map { reference in
            let from = result.node(reference.from)?.shortTypeName ?? "?"
            let to = result.node(reference.to)?.shortTypeName ?? "?"
            return
                "\(from)\(reference.from) -[\(reference.role.description), \(reference.ownership)]-> \(to)\(reference.to)"
        }
        return (lines + result.diagnostics.map(\.description)).joined(separator: "\n")
    }
}

extension Node {
    /// Whether the node is a container a path goes through to reach a value: a collection's
    /// storage, a box the compiler made (for a captured `var`, an indirect enum payload, an
    /// existential's value).
    var isContainer: Bool {
        typeName.hasSuffix(" storage") || typeName.hasPrefix("box")
    }
}
