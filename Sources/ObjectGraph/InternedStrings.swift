/// A table of distinct strings, each named by a small dense number.
///
/// A compact graph names types, labels, roles and roots by number, so a million nodes of forty
/// types store forty strings, not a million. Number `0` is always the empty string, which the
/// graph reads as "none".
///
/// ```swift
/// var strings = InternedStrings()
/// let a = strings.intern("App.Owner")   // 1
/// let b = strings.intern("App.Owner")   // 1 again
/// print(strings[a])                      // "App.Owner"
/// ```
public struct InternedStrings: Sendable {
    /// The strings, by number.
    private var values: [String] = [""]
    /// Number of each string.
    private var numbers: [String: UInt32] = ["": 0]

    /// Creates a table holding only the empty string (number `0`).
    public init() {}

    /// The number of `string`, adding it if it is new.
    ///
    /// - Parameter string: The string to intern.
    /// - Returns: Its number; the same string always gets the same number.
    /// - Complexity: O(length of `string`) (one hash lookup).
    public mutating func intern(_ string: String) -> UInt32 {
        if let number = numbers[string] { return number }
        let number = UInt32(values.count)
        values.append(string)
        numbers[string] = number
        return number
    }

    /// The number of `string` if it is in the table, without adding it.
    ///
    /// - Complexity: O(length of `string`).
    public func number(of string: String) -> UInt32? { numbers[string] }

    /// The string numbered `number`, or `""` for a number the table never gave out.
    ///
    /// - Complexity: O(1).
    public subscript(number: UInt32) -> String {
        Int(number) < values.count ? values[Int(number)] : ""
    }

    /// How many distinct strings the table holds, the empty string included.
    public var count: Int { values.count }
}

/// A table of distinct ``ReferenceRole``s, each named by a small dense number.
///
/// A compact graph's edges name their roles by number, so a million references of a dozen
/// roles store a dozen roles. Number `0` is always `.declared("")`, the role of an edge added
/// without one.
///
/// ```swift
/// var roles = InternedRoles()
/// let timer = roles.intern(.storedProperty(name: "timer"))  // 1
/// print(roles[timer])                                         // .timer
/// ```
public struct InternedRoles: Sendable {
    private var values: [ReferenceRole] = [.declared("")]
    private var numbers: [ReferenceRole: UInt32] = [.declared(""): 0]
    /// The last roles met, compared by their bytes before hashing.
    private var recent = RecentRoles()

    /// Creates a table holding only the empty role (number `0`).
    public init() {}

    /// The number of `role`, adding it if it is new.
    ///
    /// - Complexity: O(1) for one of the last four roles met (compared byte for byte), one
    ///   hash lookup otherwise.
    public mutating func intern(_ role: ReferenceRole) -> UInt32 {
        if let number = recent.number(of: role) { return number }
        let number: UInt32
        if let known = numbers[role] {
            number = known
        } else {
            number = UInt32(values.count)
            values.append(role)
            numbers[role] = number
        }
        recent.remember(role, as: number)
        return number
    }

    /// The number of `role` if it is in the table, without adding it.
    public func number(of role: ReferenceRole) -> UInt32? { numbers[role] }

    /// The role numbered `number`, or the empty role for a number the table never gave out.
    ///
    /// - Complexity: O(1).
    public subscript(number: UInt32) -> ReferenceRole {
        Int(number) < values.count ? values[Int(number)] : values[0]
    }

    /// How many distinct roles the table holds, the empty role included.
    public var count: Int { values.count }
}
