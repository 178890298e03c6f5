/// A stable name for a leak, made of type names and reference roles only (never addresses or
/// identities), so the same bug groups together across runs and machines.
public struct LeakFingerprint: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Sixteen lowercase hexadecimal digits.
    public let rawValue: String

    /// Wraps a fingerprint read back from a report.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The sixteen hexadecimal digits.
    public var description: String { rawValue }

    /// The 64-bit FNV-1a hash of a signature, as sixteen hexadecimal digits.
    ///
    /// The same signature gives the same fingerprint in every process and on every machine, so
    /// a tool that names a leak by more than its shape (the at-exit check adds where the leak
    /// was made) can hash its own signature the same way.
    ///
    /// ```swift
    /// LeakFingerprint.hashing("leak:MyApp.Owner").rawValue   // sixteen hexadecimal digits
    /// ```
    ///
    /// - Parameter signature: Text naming the leak, with no address or identity in it.
    /// - Returns: The fingerprint.
    /// - Complexity: O(*n*) in the signature's length in UTF-8.
    public static func hashing(_ signature: String) -> LeakFingerprint {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in signature.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return LeakFingerprint(
            rawValue: String(repeating: "0", count: 16 - digits.count) + digits)
    }
}

extension GraphSnapshot {
    /// The fingerprint of a leak of `leaked` explained by `path` and `cycle`.
    ///
    /// The signature hashed is the leaked type, then each reference of the path and of the
    /// (canonically rotated) cycle as holder type, kind and role.
    ///
    /// - Complexity: O(length of path and cycle × log *n*).
    public func fingerprint(of leaked: ObjectID, path: [Reference]?, cycle: [Reference]?)
        -> LeakFingerprint
    {
        var signature = "leak:" + (typeName(of: leaked) ?? "?")
        func append(_ references: [Reference], as section: String) {
            signature += "|\(section):"
            for reference in references {
                let holder = typeName(of: reference.from) ?? "?"
                signature +=
                    "\(holder)-\(reference.ownership.rawValue):\(reference.role.description)>"
            }
        }
        if let path { append(path, as: "path") }
        if let cycle { append(canonicalRotation(of: cycle), as: "cycle") }
        return .hashing(signature)
    }
}
