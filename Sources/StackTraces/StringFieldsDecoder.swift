/// A `Decoder` over a flat dictionary of string fields, just enough to decode a
/// `Runtime.Backtrace` from its `Codable` form without Foundation's `JSONDecoder`.
///
/// Only keyed containers holding strings are supported; every other request throws, so an
/// unexpected change in what `Runtime.Backtrace` decodes fails cleanly rather than trapping.
struct StringFieldsDecoder: Decoder {
    /// The fields, by coding-key name.
    let fields: [String: String]
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container<Key>(fields: fields))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw Self.unsupported([])
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw Self.unsupported([])
    }

    static func unsupported(_ path: [any CodingKey]) -> DecodingError {
        DecodingError.dataCorrupted(
            .init(codingPath: path, debugDescription: "only string fields are available")
        )
    }

    struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let fields: [String: String]
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

        func decodeNil(forKey key: Key) throws -> Bool { fields[key.stringValue] == nil }

        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            guard let value = fields[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key,
                    .init(codingPath: [key], debugDescription: "no field \(key.stringValue)")
                )
            }
            return value
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if type == String.self, let value = try decode(String.self, forKey: key) as? T {
                return value
            }
            throw StringFieldsDecoder.unsupported([key])
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type,
            forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            throw StringFieldsDecoder.unsupported([key])
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw StringFieldsDecoder.unsupported([key])
        }

        func superDecoder() throws -> any Decoder { throw StringFieldsDecoder.unsupported([]) }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            throw StringFieldsDecoder.unsupported([key])
        }
    }
}

/// Standard base64 (RFC 4648), unpadded, as `Runtime.Backtrace`'s `Codable` form writes it.
enum Base64 {
    private static let alphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8
    )

    /// Encodes `bytes` without `=` padding.
    ///
    /// - Parameter bytes: The data to encode.
    /// - Returns: The base64 text.
    /// - Complexity: O(*n*).
    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            output.append(alphabet[Int(triple >> 18 & 0x3F)])
            output.append(alphabet[Int(triple >> 12 & 0x3F)])
            if remaining > 1 { output.append(alphabet[Int(triple >> 6 & 0x3F)]) }
            if remaining > 2 { output.append(alphabet[Int(triple & 0x3F)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
