/// A pattern of type names, for leaks to accept wholesale: those of a library you do not own,
/// as LeakCanary's library-leak matchers do.
///
/// `*` stands for any run of characters (dots included), everything else for itself; the whole
/// name must match. A report matches when any object on its path or cycle has a matching type
/// name, so a pattern naming a library's types accepts every leak that passes through them.
///
/// ```swift
/// let library = TypePattern("NIOPosix.*")
/// library.matches("NIOPosix.SelectableEventLoop")      // true
/// library.matches(report)                              // any object of the report
/// ```
public struct TypePattern: Hashable, Sendable, CustomStringConvertible {
    /// The pattern as written, such as `NIOPosix.*`.
    public let pattern: String
    private let parts: [Substring]

    /// Creates a pattern.
    ///
    /// - Parameter pattern: Type names with `*` for any run of characters.
    public init(_ pattern: String) {
        self.pattern = pattern
        parts = pattern.split(separator: "*", omittingEmptySubsequences: false)
    }

    /// Patterns from a comma-separated list (spaces around each ignored, empty ones dropped),
    /// as an environment variable or a command-line option gives them.
    ///
    /// - Parameter list: Such as `NIOPosix.*, AsyncHTTPClient.*`.
    /// - Returns: The patterns.
    public static func list(_ list: String) -> [TypePattern] {
        list.split(separator: ",").map { item in
            item.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        }.filter { !$0.isEmpty }.map { TypePattern(String($0)) }
    }

    /// Whether `typeName` matches the whole pattern.
    ///
    /// - Complexity: O(*p* × *n*) at worst for a pattern of *p* parts and a name of *n*
    ///   characters.
    public func matches(_ typeName: String) -> Bool {
        var rest = Substring(typeName)
        guard let first = parts.first, rest.hasPrefix(first) else { return false }
        rest = rest.dropFirst(first.count)
        if parts.count == 1 { return rest.isEmpty }
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            // The earliest occurrence leaves the most room for the parts after it.
            while !rest.hasPrefix(part) {
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
            rest = rest.dropFirst(part.count)
        }
        let last = parts[parts.count - 1]
        return rest.count >= last.count && rest.hasSuffix(last)
    }

    /// Whether any object a report names (on its path, its cycle, or the subject) matches.
    ///
    /// - Parameter report: A report.
    /// - Returns: Whether the pattern accepts the leak.
    public func matches(_ report: LeakReport) -> Bool {
        report.objects.contains { $0.root == nil && matches($0.typeName) }
            || matches(report.subject.typeName)
    }

    /// The pattern as written.
    public var description: String { pattern }
}
