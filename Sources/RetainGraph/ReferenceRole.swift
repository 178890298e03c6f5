/// Why one node holds another: the part the reference plays in the ownership chain.
///
/// Roles are what reports print on each line of a leak trace and what a leak fingerprint is made
/// of, so they carry names (a property, a mode, a registry key) but never addresses.
public enum ReferenceRole: Hashable, Sendable {
    /// A run loop holds a scheduled timer in the given mode.
    case scheduled(mode: String)
    /// A dispatch queue holds a resumed dispatch source.
    case resumed
    /// A timer or proxy holds its target (the receiver of its action).
    case target
    /// A timer holds the closure it runs on each fire.
    case actionClosure
    /// A closure captures a value under the given name (usually `self`).
    case capture(name: String)
    /// A proxy holds the object it forwards to.
    case proxyTarget
    /// An object holds another in the named stored property.
    case storedProperty(name: String)
    /// A registry holds an entry under the given key.
    case registryEntry(name: String)
    /// A reference declared by the user, with their description.
    case declared(String)

    /// A short human-readable description, as printed in leak traces.
    ///
    /// For example `scheduled in mode "kCFRunLoopDefaultMode"`, `target`, `.timer`.
    public var description: String {
        switch self {
        case .scheduled(let mode): return "scheduled in mode \"\(mode)\""
        case .resumed: return "resumed source"
        case .target: return "target"
        case .actionClosure: return "action closure"
        case .capture(let name): return "captures \(name)"
        case .proxyTarget: return "proxy target"
        case .storedProperty(let name): return ".\(name)"
        case .registryEntry(let name): return "registry entry \"\(name)\""
        case .declared(let note): return note
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
        case .proxyTarget: return "proxyTarget"
        case .storedProperty: return "storedProperty"
        case .registryEntry: return "registryEntry"
        case .declared: return "declared"
        }
    }

    /// The payload of the role (mode, property name, key or note), if it has one.
    public var detail: String? {
        switch self {
        case .scheduled(let mode): return mode
        case .capture(let name), .storedProperty(let name), .registryEntry(let name): return name
        case .declared(let note): return note
        case .resumed, .target, .actionClosure, .proxyTarget: return nil
        }
    }

    /// Recreates a role from its ``name`` and ``detail``, as written in a JSON report.
    ///
    /// - Returns: `nil` when the name is unknown or a required detail is missing.
    public init?(name: String, detail: String?) {
        switch (name, detail) {
        case ("scheduled", let mode?): self = .scheduled(mode: mode)
        case ("resumed", _): self = .resumed
        case ("target", _): self = .target
        case ("actionClosure", _): self = .actionClosure
        case ("capture", let value?): self = .capture(name: value)
        case ("proxyTarget", _): self = .proxyTarget
        case ("storedProperty", let value?): self = .storedProperty(name: value)
        case ("registryEntry", let value?): self = .registryEntry(name: value)
        case ("declared", let value?): self = .declared(value)
        default: return nil
        }
    }
}
