/// The messages of pprof's `profile.proto` a heap profile uses, and their encoding.
///
/// Field numbers are those of `profile.proto` (github.com/google/pprof, proto/profile.proto):
/// Profile 1 sample_type, 2 sample, 3 mapping, 4 location, 5 function, 6 string_table,
/// 9 time_nanos, 11 period_type, 12 period, 14 default_sample_type; ValueType 1 type, 2 unit;
/// Sample 1 location_id (packed), 2 value (packed), 3 label; Label 1 key, 2 str, 3 num,
/// 4 num_unit; Mapping 1 id, 2 memory_start, 3 memory_limit, 4 file_offset, 5 filename,
/// 7 has_functions, 8 has_filenames, 9 has_line_numbers, 10 has_inline_frames; Location 1 id,
/// 2 mapping_id, 3 address, 4 line; Line 1 function_id, 2 line, 3 column; Function 1 id,
/// 2 name, 3 system_name, 4 filename. Strings are indices into the string table, whose entry
/// 0 is "".
struct PprofProfile {
    struct ValueType {
        var type: Int64
        var unit: Int64
    }

    struct Label {
        var key: Int64
        var string: Int64 = 0
        var number: Int64 = 0
        var numberUnit: Int64 = 0
    }

    struct Sample {
        var locations: [UInt64]
        var values: [Int64]
        var labels: [Label]
    }

    struct Mapping {
        var id: UInt64
        var start: UInt64
        var limit: UInt64
        var fileOffset: UInt64
        var filename: Int64
    }

    struct Line {
        var function: UInt64
        var line: Int64
        var column: Int64
    }

    struct Location {
        var id: UInt64
        var mapping: UInt64
        var address: UInt64
        var lines: [Line]
    }

    struct Function {
        var id: UInt64
        var name: Int64
        var systemName: Int64
        var filename: Int64
    }

    var sampleTypes: [ValueType] = []
    var samples: [Sample] = []
    var mappings: [Mapping] = []
    var locations: [Location] = []
    var functions: [Function] = []
    var strings: [String] = [""]
    var timeNanoseconds: Int64 = 0
    var periodType = ValueType(type: 0, unit: 0)
    var period: Int64 = 0
    var defaultSampleType: Int64 = 0

    /// The profile in the protocol buffers wire format (not compressed).
    func encoded() -> [UInt8] {
        var out = ProtobufWriter()
        for type in sampleTypes { out.message(1) { Self.write(type, &$0) } }
        for sample in samples {
            out.message(2) { message in
                message.packed(1, sample.locations)
                message.packed(2, sample.values.map { UInt64(bitPattern: $0) })
                for label in sample.labels {
                    message.message(3) { fields in
                        fields.int(1, label.key)
                        fields.int(2, label.string)
                        fields.int(3, label.number)
                        fields.int(4, label.numberUnit)
                    }
                }
            }
        }
        for mapping in mappings {
            out.message(3) { fields in
                fields.uint(1, mapping.id)
                fields.uint(2, mapping.start)
                fields.uint(3, mapping.limit)
                fields.uint(4, mapping.fileOffset)
                fields.int(5, mapping.filename)
                for flag in 7...10 { fields.bool(flag, true) }  // functions, files, lines, inlines
            }
        }
        for location in locations {
            out.message(4) { fields in
                fields.uint(1, location.id)
                fields.uint(2, location.mapping)
                fields.uint(3, location.address)
                for line in location.lines {
                    fields.message(4) { entry in
                        entry.uint(1, line.function)
                        entry.int(2, line.line)
                        entry.int(3, line.column)
                    }
                }
            }
        }
        for function in functions {
            out.message(5) { fields in
                fields.uint(1, function.id)
                fields.int(2, function.name)
                fields.int(3, function.systemName)
                fields.int(4, function.filename)
            }
        }
        for string in strings { out.string(6, string) }
        out.int(9, timeNanoseconds)
        out.message(11) { Self.write(periodType, &$0) }
        out.int(12, period)
        out.int(14, defaultSampleType)
        return out.bytes
    }

    private static func write(_ type: ValueType, _ out: inout ProtobufWriter) {
        out.int(1, type.type)
        out.int(2, type.unit)
    }
}
