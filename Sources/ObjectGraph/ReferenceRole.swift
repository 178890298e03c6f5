/// Why one node holds another: the part the reference plays, carried as a type from where the
/// reference is found (a timer recording its target, the reflection walk reading a property,
/// the census reading a collection's element) to the renderers.
///
/// Roles are what reports print on each line of a leak trace and what a leak fingerprint is made
/// of, so they carry names (a property path, a mode, a captured type) but never addresses. Code
/// that decides something from a reference (a hint, a suspect mark) switches on the role's
/// case; nothing recovers a role from its text.
///
/// ```swift
/// let role = ReferenceRole.storedProperty(name: "timer")
/// role.description          // ".timer"
/// role.isCapture            // false
/// ReferenceRole.closureCapture(property: "handler", captured: "Owner").isCapture  // true
/// ```
public enum ReferenceRole: Hashable, Sendable {
    // Recorded by instrumented code.

    /// A run loop holds a scheduled timer in the given mode.
    case scheduled(mode: String)
    /// A dispatch queue holds a resumed dispatch source.
    case resumed
    /// A timer or proxy holds its target (the receiver of its action).
    case target
    /// A timer holds the closure it runs on each fire.
    case actionClosure
    /// A proxy holds the object it forwards to.
    case proxyTarget
    /// A registry holds an entry under the given key.
    case registryEntry(name: String)
    /// A reference declared by the user, with their description.
    case declared(String)

    // Read from memory.

    /// An object holds another in a stored property, named by its path through the values
    /// that contain it (`timer`, `state.timer`, `slot (Any).some.state`).
    case storedProperty(name: String)
    /// A closure's context holds a value it captured: `name` is the captured value's type (or
    /// `var` for the box of a captured variable), with the path inside it when the reference
    /// lies within a captured value.
    case capture(name: String)
    /// A property holds a closure whose only capture is the target: the compiler made the
    /// captured object itself the closure's context, so the closure has no object of its own.
    case closureCapture(property: String, captured: String)
    /// A collection's storage holds an element (an array's or a set's), with the path inside
    /// the element when the reference lies within it.
    case element(collection: String, path: String)
    /// A dictionary's storage holds a key.
    case dictionaryKey(collection: String, path: String)
    /// A dictionary's storage holds a value.
    case dictionaryValue(collection: String, path: String)
    /// The box of a captured `var` holds its value.
    case boxedValue(path: String)
    /// A `Task` runs the closure it was created with.
    case runs

    // Held from outside the heap.

    /// What holds an object from outside the Swift heap (a global variable, the concurrency
    /// runtime for a `Task`, a run loop for a `Foundation.Timer`…) holds it: the reference from
    /// a holder's root to the first object it keeps.
    case heldBy(HeapHolderKind)

    /// A short human-readable description, as printed in leak traces.
    ///
    /// For example `scheduled in mode "kCFRunLoopDefaultMode"`, `target`, `.timer`,
    /// `captures Owner`, `element of [Entry]`.
    public var description: String {
        switch self {
        case .scheduled(let mode): return "scheduled in mode \"\(mode)\""
        case .resumed: return "resumed source"
        case .target: return "target"
        case .actionClosure: return "action closure"
        case .capture(let name): return "captures \(name)"
        case .closureCapture(let property, let captured):
            return ".\(property) (a closure capturing \(captured))"
        case .proxyTarget: return "proxy target"
        case .storedProperty(let name): return ".\(name)"
        case .registryEntry(let name): return "registry entry \"\(name)\""
        case .declared(let note): return note
        case .element(let collection, let path):
            return "element of \(collection)" + Self.inner(path)
        case .dictionaryKey(let collection, let path):
            return "key of \(collection)" + Self.inner(path)
        case .dictionaryValue(let collection, let path):
            return "value of \(collection)" + Self.inner(path)
        case .boxedValue(let path): return "value" + Self.inner(path)
        case .runs: return "runs"
        case .heldBy(let holder): return holder.referenceDescription
        }
    }

    private static func inner(_ path: String) -> String { path.isEmpty ? "" : " .\(path)" }

    /// Whether the reference is a closure's capture (of a context, or of a closure whose
    /// context is the captured object itself): the reference a `[weak self]` cuts.
    public var isCapture: Bool {
        switch self {
        case .capture, .closureCapture: return true
        default: return false
        }
    }

    /// Whether the reference is how a timer or proxy reaches what it calls: its target, its
    /// action closure or its proxy's target.
    public var isCalling: Bool {
        switch self {
        case .target, .actionClosure, .proxyTarget: return true
        default: return false
        }
    }

    /// Whether the reference is how a run loop or queue holds a timer or source it fires.
    public var isScheduling: Bool {
        switch self {
        case .scheduled, .resumed: return true
        default: return false
        }
    }

    /// A stable machine-readable name of the role without its payload, such as `storedProperty`.
    public var name: String {
        switch self {
        case .scheduled: return "scheduled"
        case .resumed: return "resumed"
        case .target: return "target"
        case .actionClosure: return "actionClosure"
        case .capture: return "capture"
        case .closureCapture: return "closureCapture"
        case .proxyTarget: return "proxyTarget"
        case .storedProperty: return "storedProperty"
        case .registryEntry: return "registryEntry"
        case .declared: return "declared"
        case .element: return "element"
        case .dictionaryKey: return "dictionaryKey"
        case .dictionaryValue: return "dictionaryValue"
        case .boxedValue: return "boxedValue"
        case .runs: return "runs"
        case .heldBy: return "heldBy"
        }
    }

    /// The payload of the role (mode, property name, key, captured type, collection, holder),
    /// if it has one.
    public var detail: String? {
        switch self {
        case .scheduled(let mode): return mode
        case .capture(let name), .storedProperty(let name), .registryEntry(let name): return name
        case .closureCapture(let property, _): return property
        case .declared(let note): return note
        case .element(let collection, _), .dictionaryKey(let collection, _),
            .dictionaryValue(let collection, _):
            return collection
        case .heldBy(let holder): return holder.rawValue
        case .boxedValue, .resumed, .target, .actionClosure, .proxyTarget, .runs: return nil
        }
    }

    /// The second part of the payload, for roles with two: the captured type of a
    /// ``closureCapture(property:captured:)``, the path inside an element, key, value or boxed
    /// value.
    public var path: String? {
        switch self {
        case .closureCapture(_, let captured): return captured
        case .element(_, let path), .dictionaryKey(_, let path), .dictionaryValue(_, let path),
            .boxedValue(let path):
            return path.isEmpty ? nil : path
        default: return nil
        }
    }

    /// Recreates a role from its ``name``, ``detail`` and ``path``, as written in a JSON report.
    ///
    /// - Returns: `nil` when the name is unknown or a required detail is missing.
    public init?(name: String, detail: String?, path: String? = nil) {
        switch (name, detail) {
        case ("scheduled", let mode?): self = .scheduled(mode: mode)
        case ("resumed", _): self = .resumed
        case ("target", _): self = .target
        case ("actionClosure", _): self = .actionClosure
        case ("capture", let value?): self = .capture(name: value)
        case ("closureCapture", let property?):
            self = .closureCapture(property: property, captured: path ?? "?")
        case ("proxyTarget", _): self = .proxyTarget
        case ("storedProperty", let value?): self = .storedProperty(name: value)
        case ("registryEntry", let value?): self = .registryEntry(name: value)
        case ("declared", let value?): self = .declared(value)
        case ("element", let collection?): self = .element(collection: collection, path: path ?? "")
        case ("dictionaryKey", let collection?):
            self = .dictionaryKey(collection: collection, path: path ?? "")
        case ("dictionaryValue", let collection?):
            self = .dictionaryValue(collection: collection, path: path ?? "")
        case ("boxedValue", _): self = .boxedValue(path: path ?? "")
        case ("runs", _): self = .runs
        case ("heldBy", let holder?):
            guard let kind = HeapHolderKind(rawValue: holder) else { return nil }
            self = .heldBy(kind)
        default: return nil
        }
    }
}

extension ReferenceRole {
    /// The role of a reference made of this one and `inner` taken after it, when the object
    /// between them is looked through (a lock's storage, say): `.state` then `.action.always`
    /// is `.state.action.always`; a property then a closure capture is a closure capture at the
    /// joined property path.
    ///
    /// - Returns: The joined role; `inner` itself when this role is not a stored property.
    package func joined(with inner: ReferenceRole) -> ReferenceRole {
        guard case .storedProperty(let outer) = self else { return inner }
        switch inner {
        case .storedProperty(let path):
            return .storedProperty(name: path.isEmpty ? outer : "\(outer).\(path)")
        case .closureCapture(let path, let captured):
            return .closureCapture(
                property: path.isEmpty ? outer : "\(outer).\(path)", captured: captured)
        default:
            return inner
        }
    }

    /// The role of a function-context reference whose context turned out to be an instance of
    /// the type named `captured` (the closure's only capture): a capture of that instance.
    package func capturing(_ captured: String) -> ReferenceRole {
        switch self {
        case .storedProperty(let name): return .closureCapture(property: name, captured: captured)
        case .capture: return .capture(name: captured)
        default: return self
        }
    }
}
