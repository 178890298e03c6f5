/// How a reference holds its target: the one vocabulary for ownership across RetainGraph.
///
/// Every source of references speaks it: the live graph's declared references, the reflection
/// walk, the heap census and a process read from outside. A reference that keeps its target
/// alive is *retaining* (``retainsTarget``): strong ones, and words read conservatively, which
/// count as strong because nothing says otherwise.
///
/// ```swift
/// let kind: Ownership = .weak
/// kind.retainsTarget                 // false
/// Ownership.conservative.retainsTarget  // true: a word that is an object's address
/// ```
///
/// Its raw value is the name written in JSON reports (`strong`, `weak`, `unowned`,
/// `unowned(unsafe)`, `conservative`).
public enum Ownership: String, Hashable, Sendable, CaseIterable, Codable {
    /// Keeps the target alive: a `let`, a `var`, a strong capture, a timer's target.
    case strong
    /// A word that holds an object's address, read from memory whose layout is unknown (a
    /// task's frame, a C block's captures, a field whose type the compiler hides). Counted as
    /// strong, and shown as a guess: a path prefers declared and typed references to it.
    case conservative
    /// A `weak` reference: does not keep the target alive and becomes `nil` when it dies.
    case weak
    /// An `unowned` (safe) reference: keeps the target's memory, not the target.
    case unowned
    /// An `unowned(unsafe)` reference, or `Unmanaged`: no reference count at all.
    case unownedUnsafe = "unowned(unsafe)"

    /// Whether references of this kind keep their target alive.
    @inlinable
    public var retainsTarget: Bool { self == .strong || self == .conservative }

    /// The ownership's number in a compact graph's edge flags (three bits): the retaining
    /// kinds first, so that `byte < 2` tests for them.
    @inlinable
    public var byte: UInt8 {
        switch self {
        case .strong: return 0
        case .conservative: return 1
        case .weak: return 2
        case .unowned: return 3
        case .unownedUnsafe: return 4
        }
    }

    /// The ownership whose ``byte`` is `byte` (its low three bits); `strong` for an unused value.
    @inlinable
    public init(byte: UInt8) {
        switch byte & 7 {
        case 1: self = .conservative
        case 2: self = .weak
        case 3: self = .unowned
        case 4: self = .unownedUnsafe
        default: self = .strong
        }
    }

    /// How reports draw a reference of this kind: `⇒` when it retains, `→` otherwise (the
    /// notation of the seed scenarios).
    public var arrow: String { retainsTarget ? "⇒" : "→" }
}

/// Where a reference came from: declared by the code that made it, or found by reading
/// memory.
public enum ReferenceOrigin: UInt8, Hashable, Sendable, CaseIterable {
    /// Recorded by the code that made it (an instrumented timer, `LiveGraph.addReference`).
    case declared
    /// Found by reading the watched objects' memory (ReferenceReflection).
    case reflection
    /// Found by reading the whole heap (a heap census, or a process read from outside).
    case heap

    /// Whether the reference was found by reading memory rather than declared.
    public var isDiscovered: Bool { self != .declared }
}
