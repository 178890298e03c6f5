/// Writes the protocol buffers wire format: varints and length-delimited fields, the two wire
/// types `profile.proto` needs (its doubles, fixed-width and group types are never used).
///
/// Messages nest by writing the inner message into a writer of its own and adding its bytes as a
/// length-delimited field, which copies each nested message once; pprof's messages are small
/// (a sample, a location) and the profile is written once per request.
struct ProtobufWriter {
    /// The encoded bytes so far.
    private(set) var bytes: [UInt8] = []

    /// Appends a base-128 varint.
    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Appends a field's tag: its number and wire type (0 varint, 2 length-delimited).
    mutating func tag(_ field: Int, wireType: UInt64) {
        varint(UInt64(field) << 3 | wireType)
    }

    /// Appends an `int64`/`uint64`/`bool` field; a zero value is left out (proto3 default).
    mutating func int(_ field: Int, _ value: Int64) {
        guard value != 0 else { return }
        tag(field, wireType: 0)
        varint(UInt64(bitPattern: value))
    }

    /// Appends an unsigned field; zero is left out.
    mutating func uint(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, wireType: 0)
        varint(value)
    }

    /// Appends varint fields numbered 1, 2, … in the order given, as most of `profile.proto`'s
    /// messages are laid out (zeros left out; a negative value as its two's complement).
    mutating func fields<each Value: BinaryInteger>(_ values: repeat each Value) {
        var field = 0
        for value in repeat each values {
            field += 1
            uint(field, UInt64(truncatingIfNeeded: value))
        }
    }

    /// Appends a `bool` field; false is left out.
    mutating func bool(_ field: Int, _ value: Bool) {
        if value { uint(field, 1) }
    }

    /// Appends a length-delimited field (a string, bytes or an embedded message), even empty.
    mutating func bytes(_ field: Int, _ value: [UInt8]) {
        tag(field, wireType: 2)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends a string field, even empty (the string table's first entry must be "").
    mutating func string(_ field: Int, _ value: String) {
        bytes(field, Array(value.utf8))
    }

    /// Appends an embedded message written by `body`.
    mutating func message(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        body(&inner)
        bytes(field, inner.bytes)
    }

    /// Appends a packed repeated varint field; nothing when `values` is empty.
    mutating func packed(_ field: Int, _ values: [UInt64]) {
        guard !values.isEmpty else { return }
        var inner = ProtobufWriter()
        for value in values { inner.varint(value) }
        bytes(field, inner.bytes)
    }
}
