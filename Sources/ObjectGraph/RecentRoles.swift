/// The last few roles met, with their numbers, for interning roles without hashing.
///
/// Most references repeat a handful of roles recorded from string literals; comparing a role's
/// bytes with the last four met spares a string comparison and a hash per reference. A miss is
/// settled by the caller's dictionary. Used by the live graph (when a reference is recorded)
/// and by snapshots built from other graphs.
package struct RecentRoles {
    private var roles: [ReferenceRole] = []
    private var numbers: [UInt32] = []
    private var next = 0
    /// How many roles are remembered.
    static let capacity = 4

    package init() {}

    /// The number remembered for `role`, if it is one of the last roles met (byte for byte).
    @inline(__always)
    package func number(of role: ReferenceRole) -> UInt32? {
        for slot in roles.indices where Self.sameBits(roles[slot], role) { return numbers[slot] }
        return nil
    }

    /// Remembers `role` as `number`, forgetting the oldest when full.
    package mutating func remember(_ role: ReferenceRole, as number: UInt32) {
        if roles.count < Self.capacity {
            roles.append(role)
            numbers.append(number)
        } else {
            roles[next] = role
            numbers[next] = number
            next = (next + 1) % Self.capacity
        }
    }

    /// Whether two roles have the same bytes, which makes them equal (the same case, and
    /// strings with the same storage or the same inline characters); equal roles may still
    /// differ in bytes (two copies of one text), so a miss is settled by the dictionary.
    ///
    /// A role recorded from a string literal, as most are, has the same bytes every time:
    /// this spares a string comparison and a hash per reference in a snapshot.
    @inline(__always)
    package static func sameBits(_ a: ReferenceRole, _ b: ReferenceRole) -> Bool {
        withUnsafeBytes(of: a) { left in
            withUnsafeBytes(of: b) { right in
                var offset = 0
                while offset + 8 <= left.count {
                    guard
                        left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                            == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    else { return false }
                    offset += 8
                }
                while offset < left.count {
                    guard left[offset] == right[offset] else { return false }
                    offset += 1
                }
                return true
            }
        }
    }
}
