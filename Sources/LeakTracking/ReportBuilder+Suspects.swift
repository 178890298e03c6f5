import RetainGraph

/// The one reference a report marks as the suspect on its path, and the one on its cycle: the
/// reference the user wrote and can cut (a capture, a timer's target, a session's delegate, a
/// cache's entry), never a runtime reference or a word read conservatively on the way to it.
extension ReportBuilder {
    /// The position of the suspect reference among `references`.
    ///
    /// Tried in order, the first that matches wins (the last match on the list for captures
    /// and entries, the one nearest the leaked object):
    /// 1. a `URLSession`'s reference to its delegate;
    /// 2. a timer's or proxy's strong target (not a scheduled one-shot's, which lets go when
    ///    it fires);
    /// 3. a strong closure capture, typed before conservative;
    /// 4. a timer registry's entry;
    /// 5. a raw `Foundation.Timer`'s discovered reference;
    /// 6. on a path from a global variable, the collection entry that holds the object;
    /// 7. on a cycle, the reference into the leaked object (a child's strong `delegate`),
    ///    else the cycle's last reference: a cycle always has one suspect.
    ///
    /// - Parameters:
    ///   - references: A path (root first) or a cycle.
    ///   - isCycle: Whether `references` is a cycle.
    ///   - subject: The leaked object (or the zombie timer).
    /// - Returns: The suspect's position, or nil for a path with nothing to suspect.
    /// - Complexity: O(*r*) for *r* references.
    func suspect(in references: [Reference], isCycle: Bool, subject: ObjectID?) -> Int? {
        let retaining = references.indices.filter { references[$0].ownership.retainsTarget }
        func node(_ id: ObjectID) -> Node? { snapshot.node(id) }
        func known(_ id: ObjectID) -> KnownType? {
            node(id).flatMap { KnownType(typeName: $0.typeName) }
        }
        if let index = retaining.first(where: { known(references[$0].from) == .urlSession }) {
            return index
        }
        if let index = retaining.first(where: { isStrongTarget(references[$0]) }) {
            return index
        }
        let captures = retaining.filter { references[$0].role.isCapture }
        if let index = captures.last(where: { references[$0].ownership == .strong })
            ?? captures.last
        {
            return index
        }
        if let index = retaining.first(where: {
            if case .registryEntry = references[$0].role { true } else { false }
        }) {
            return index
        }
        if let index = retaining.first(where: {
            references[$0].isDiscovered && HintRules.isFoundationTimer(node(references[$0].from))
        }) {
            return index
        }
        if !isCycle, let first = references.first,
            case .root(.heapHolder(.globalVariable))? = node(first.from)?.kind,
            let index = retaining.last(where: { isCollectionEntry(references[$0].role) })
        {
            return index
        }
        guard isCycle, !references.isEmpty else { return nil }
        return references.lastIndex { $0.to == subject } ?? references.count - 1
    }

    /// A timer's or proxy's strong target, unless a scheduled one-shot timer will drop it.
    private func isStrongTarget(_ reference: Reference) -> Bool {
        guard reference.role == .target || reference.role == .proxyTarget else { return false }
        let holder = snapshot.node(reference.from)
        if let timer = holder?.timer, !timer.repeats, timer.isScheduled { return false }
        return holder?.kind == .timer || holder?.kind == .proxy
            || HintRules.isFoundationTimer(holder)
    }

    private func isCollectionEntry(_ role: ReferenceRole) -> Bool {
        switch role {
        case .element, .dictionaryKey, .dictionaryValue: return true
        default: return false
        }
    }
}
