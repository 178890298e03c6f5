/// A JSON value, as ``JSONReader`` reads it.
enum JSONValue: Equatable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// The member called `key` of an object, else `nil`.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, else `nil`.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The number as an `Int` when it is a whole number in range, else `nil`.
    var int: Int? {
        if case .number(let value) = self { return Int(exactly: value) }
        return nil
    }

    /// The elements of an array, else `nil`.
    var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}

/// A small, strict JSON reader (RFC 8259) for the symbolizer's output: StackTraces does not
/// import Foundation.
///
/// Reads a sequence of values separated by white space (JSON Lines as well as one document).
/// Any malformed input throws; nothing traps, and nesting deeper than ``maximumDepth`` throws
/// rather than exhausting the stack.
struct JSONReader {
    /// Why the input is not JSON.
    struct Malformed: Error, Equatable {
        /// The byte offset where reading stopped.
        var offset: Int
    }

    /// The deepest nesting of arrays and objects accepted.
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var position = 0

    /// Reads every top-level value of `bytes`.
    ///
    /// - Parameter bytes: UTF-8 text.
    /// - Returns: The values, in order.
    /// - Throws: ``Malformed`` at the first byte that is not valid JSON.
    /// - Complexity: O(*n*) in the length of `bytes`.
    static func values(in bytes: [UInt8]) throws(Malformed) -> [JSONValue] {
        var reader = JSONReader(bytes: bytes)
        var values: [JSONValue] = []
        reader.skipWhitespace()
        while reader.position < bytes.count {
            values.append(try reader.value(depth: 0))
            reader.skipWhitespace()
        }
        return values
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var malformed: Malformed { Malformed(offset: position) }

    private mutating func value(depth: Int) throws(Malformed) -> JSONValue {
        guard depth < Self.maximumDepth, position < bytes.count else { throw malformed }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return try number()
        }
    }

    private mutating func object(depth: Int) throws(Malformed) -> JSONValue {
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw malformed
            }
            let key = try string()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw malformed }
            skipWhitespace()
            members[key] = try value(depth: depth + 1)
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "}")) else { throw malformed }
        return .object(members)
    }

    private mutating func array(depth: Int) throws(Malformed) -> JSONValue {
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            skipWhitespace()
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "]")) else { throw malformed }
        return .array(elements)
    }

    private mutating func string() throws(Malformed) -> String {
        position += 1  // the opening quote
        var scalars = String.UnicodeScalarView()
        var start = position
        func flush(_ end: Int) {
            scalars.append(
                contentsOf: String(decoding: bytes[start..<end], as: UTF8.self).unicodeScalars)
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                flush(position)
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw malformed }
            guard byte == UInt8(ascii: "\\") else {
                position += 1
                continue
            }
            flush(position)
            position += 1
            guard position < bytes.count else { throw malformed }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
                scalars.append(Unicode.Scalar(escape))
            case UInt8(ascii: "b"): scalars.append("\u{8}")
            case UInt8(ascii: "f"): scalars.append("\u{C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
            default: throw malformed
            }
            start = position
        }
        throw malformed
    }

    /// The scalar of a `\uXXXX` escape (the `\u` already read), joining surrogate pairs; a lone
    /// surrogate becomes U+FFFD.
    private mutating func unicodeEscape() throws(Malformed) -> Unicode.Scalar {
        let first = try hexQuad()
        if (0xD800..<0xDC00).contains(first), position + 1 < bytes.count,
            bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
        {
            let saved = position
            position += 2
            let second = try hexQuad()
            if (0xDC00..<0xE000).contains(second) {
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                return Unicode.Scalar(value) ?? "\u{FFFD}"
            }
            position = saved
        }
        return Unicode.Scalar(first) ?? "\u{FFFD}"
    }

    private mutating func hexQuad() throws(Malformed) -> UInt32 {
        guard position + 4 <= bytes.count else { throw malformed }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            guard let digit = hexDigit(byte) else { throw malformed }
            value = value << 4 | digit
        }
        position += 4
        return value
    }

    private func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func number() throws(Malformed) -> JSONValue {
        let start = position
        let allowed = Array("+-0123456789.eE".utf8)
        while position < bytes.count, allowed.contains(bytes[position]) { position += 1 }
        guard position > start,
            let value = Double(String(decoding: bytes[start..<position], as: UTF8.self)),
            value.isFinite
        else { throw Malformed(offset: start) }
        return .number(value)
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws(Malformed) -> JSONValue
    {
        let word = Array(word.utf8)
        guard bytes.count - position >= word.count,
            bytes[position..<position + word.count].elementsEqual(word)
        else { throw malformed }
        position += word.count
        return value
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func skipWhitespace() {
        while position < bytes.count,
            [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position])
        {
            position += 1
        }
    }
}
