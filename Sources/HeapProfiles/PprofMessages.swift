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
        for type in sampleTypes { out.message(1) { $0.fields(type.type, type.unit) } }
        for sample in samples {
            out.message(2) { message in
                message.packed(1, sample.locations)
                message.packed(2, sample.values.map { UInt64(bitPattern: $0) })
                for label in sample.labels {
                    message.message(3) {
                        $0.fields(label.key, label.string, label.number, label.numberUnit)
                    }
                }
            }
        }
        for mapping in mappings {
            out.message(3) { fields in
                fields.fields(
                    mapping.id, mapping.start, mapping.limit, mapping.fileOffset, mapping.filename)
                for flag in 7...10 { fields.bool(flag, true) }  // functions, files, lines, inlines
            }
        }
        for location in locations {
            out.message(4) { fields in
                fields.fields(location.id, location.mapping, location.address)
                for line in location.lines {
                    fields.message(4) { $0.fields(line.function, line.line, line.column) }
                }
            }
        }
        for function in functions {
            out.message(5) {
                $0.fields(function.id, function.name, function.systemName, function.filename)
            }
        }
        for string in strings { out.string(6, string) }
        out.int(9, timeNanoseconds)
        out.message(11) { $0.fields(periodType.type, periodType.unit) }
        out.int(12, period)
        out.int(14, defaultSampleType)
        return out.bytes
    }
}
