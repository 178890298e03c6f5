import RetainGraph

/// A leak the code base knows about and accepts for now, with the reason why.
///
/// Known leaks are still found and reported (their ``WatchVerdict/allowance`` names the
/// exception), but the test helpers do not fail a test for them, in the spirit of LeakCanary's
/// `@SkipLeakDetection`. Give a reason a reader can act on, such as an issue link.
///
/// ```swift
/// let watcher = LeakWatcher(knownLeaks: [
///     .type(LegacyPoller.self, reason: "invalidated by the app delegate; see #42"),
/// ])
/// ```
public struct KnownLeak: Sendable, Hashable, CustomStringConvertible {
    /// How a known leak recognises a report.
    public enum Match: Sendable, Hashable {
        /// The leaked (or, for a zombie, the dead) object has this fully qualified type name.
        case typeName(String)
        /// The report has this fingerprint.
        case fingerprint(LeakFingerprint)
    }

    /// What the known leak matches.
    public let match: Match
    /// Why the leak is accepted.
    public let reason: String

    /// Creates a known leak.
    ///
    /// - Parameters:
    ///   - match: What to match.
    ///   - reason: Why the leak is accepted.
    public init(_ match: Match, reason: String) {
        self.match = match
        self.reason = reason
    }

    /// Accepts leaks of objects of the given type.
    ///
    /// - Parameters:
    ///   - type: The leaked object's type.
    ///   - reason: Why the leak is accepted.
    /// - Returns: The known leak.
    public static func type(_ type: Any.Type, reason: String) -> KnownLeak {
        KnownLeak(.typeName(String(reflecting: type)), reason: reason)
    }

    /// Accepts leaks with the given fingerprint, as printed in a report.
    ///
    /// - Parameters:
    ///   - fingerprint: The sixteen hexadecimal digits of the fingerprint.
    ///   - reason: Why the leak is accepted.
    /// - Returns: The known leak.
    public static func fingerprint(_ fingerprint: String, reason: String) -> KnownLeak {
        KnownLeak(.fingerprint(LeakFingerprint(rawValue: fingerprint)), reason: reason)
    }

    /// Whether the known leak covers a report.
    ///
    /// - Parameter report: A leak or zombie report.
    /// - Returns: `true` when the report's object type or fingerprint matches.
    public func matches(_ report: LeakReport) -> Bool {
        switch match {
        case .typeName(let name): return report.subject.typeName == name
        case .fingerprint(let fingerprint): return report.fingerprint == fingerprint.rawValue
        }
    }

    /// `type MyApp.Owner (reason)` or `fingerprint 0123… (reason)`.
    public var description: String {
        switch match {
        case .typeName(let name): return "type \(name) (\(reason))"
        case .fingerprint(let fingerprint): return "fingerprint \(fingerprint) (\(reason))"
        }
    }
}
