/// The platform types RetainGraph gives advice of their own about, recognised in one place.
///
/// "Is it a `Foundation.Timer`?" is asked by the walk (to call the node a timer), by reports
/// (to mark its reference as the suspect and to note that it is never freed on Linux) and by
/// hints: all of them ask this type.
///
/// ```swift
/// KnownType(typeName: "Foundation.Timer")  // .foundationTimer
/// KnownType(typeName: "MyApp.Owner")       // nil
/// ```
public enum KnownType: Hashable, Sendable, CaseIterable {
    /// corelibs Foundation's `Timer`, which on Linux is never freed.
    case foundationTimer
    /// Foundation's `NotificationCenter` (FoundationEssentials defines it on Linux).
    case notificationCenter
    /// Foundation's `URLSession`, which keeps its delegate until invalidated.
    case urlSession
    /// Foundation's `Thread`.
    case thread
    /// The object behind a `CheckedContinuation` (the standard library's
    /// `CheckedContinuationCanary`): whoever holds it can resume a task that waits on it.
    case checkedContinuation
    /// Dispatch's `DispatchWorkItem`, whose block libdispatch keeps until it runs (a cancelled
    /// item's block included, until its deadline).
    case dispatchWorkItem
    /// Dispatch's `DispatchSource` (a timer, signal or file source), which keeps its event
    /// handler until it is cancelled.
    case dispatchSource

    /// The type a qualified type name names, if it is one of the known ones.
    ///
    /// - Complexity: O(length of the name).
    public init?(typeName: String) {
        switch typeName {
        case "Foundation.Timer": self = .foundationTimer
        case "FoundationEssentials.NotificationCenter", "Foundation.NotificationCenter":
            self = .notificationCenter
        case "Foundation.URLSession", "FoundationNetworking.URLSession": self = .urlSession
        case "Foundation.Thread": self = .thread
        case "Swift.CheckedContinuationCanary", "_Concurrency.CheckedContinuationCanary":
            self = .checkedContinuation
        case "Dispatch.DispatchWorkItem": self = .dispatchWorkItem
        case "Dispatch.DispatchSource": self = .dispatchSource
        default: return nil
        }
    }

    /// Whether a node of this type is a timer.
    public var isTimer: Bool { self == .foundationTimer }
}

extension CompactGraph {
    /// The known platform type of `node`, if it is one.
    ///
    /// - Complexity: O(length of the type name).
    public func knownType(of node: NodeID) -> KnownType? { KnownType(typeName: typeName(of: node)) }
}
