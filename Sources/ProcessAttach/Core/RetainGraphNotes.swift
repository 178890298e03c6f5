import RetainGraphUtilities

/// The notes RetainGraph's core writers add to a core (name `RETAINGRAPH`), for what an ELF
/// core has no standard note for: the memory map as `/proc/PID/maps` showed it (names such as
/// `[heap]`, inodes), thread names, when it was written, what its writer could not see, and
/// the other threads' stacks of a forked child's dump.
///
/// Each note's contents is text (UTF-8, one item a line): the C writer of a forked child
/// (`Sources/CHeapDump`) writes the same notes with `write(2)` alone. A reader ignores a type
/// it does not know.
///
/// Types are `0x5247000N` ("RG"), numbers no standard note uses: gdb's BFD reads note types
/// 1 to 6 as the kernel's whatever their name.
///
/// | type | contents |
/// | --- | --- |
/// | 0x52470001 | the memory map, `/proc/PID/maps` lines |
/// | 0x52470002 | thread names: `TID<TAB>NAME` lines |
/// | 0x52470003 | statements: what the writer could not see, one a line |
/// | 0x52470004 | when it was written: seconds since 1970, `SECONDS.NANOSECONDS` |
/// | 0x52470005 | stacks of threads whose registers are unknown: `START END THREADPOINTER` in hex |
/// | 0x52470006 | the writer: `retain-graph dump` or `fork dump` |
struct RetainGraphNotes {
    static let name = "RETAINGRAPH"
    static let mapsType: UInt32 = 0x5247_0001
    static let threadNamesType: UInt32 = 0x5247_0002
    static let statementsType: UInt32 = 0x5247_0003
    static let timeType: UInt32 = 0x5247_0004
    static let stacksType: UInt32 = 0x5247_0005
    static let writerType: UInt32 = 0x5247_0006

    /// A stack of a thread whose registers are unknown (a forked child sees one thread).
    struct UnknownStack: Equatable {
        var range: Range<UInt>
        /// The thread's `pthread_t` found at its stack's top, or 0.
        var threadPointer: UInt
    }

    var maps: String?
    var threadNames: [Int32: String] = [:]
    var statements: [String] = []
    /// Seconds since 1970.
    var time: Double?
    var unknownStacks: [UnknownStack] = []
    var writer: String?

    /// Reads one note of type `type`.
    mutating func read(type: UInt32, _ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        let lines = text.split(separator: "\n")
        switch type {
        case Self.mapsType:
            maps = text
        case Self.threadNamesType:
            for line in lines {
                let fields = line.split(separator: "\t", maxSplits: 1)
                if fields.count == 2, let id = Int32(fields[0]) {
                    threadNames[id] = PrintableText.escaped(String(fields[1]))
                }
            }
        case Self.statementsType:
            statements += lines.map { PrintableText.escaped(String($0)) }
        case Self.timeType:
            time = Double(text.trimmingSpaces)
        case Self.stacksType:
            for line in lines {
                let fields = line.split(separator: " ").compactMap { UInt($0, radix: 16) }
                if fields.count == 3, fields[0] < fields[1] {
                    unknownStacks.append(
                        UnknownStack(range: fields[0]..<fields[1], threadPointer: fields[2]))
                }
            }
        case Self.writerType:
            writer = PrintableText.escaped(text.trimmingSpaces)
        default:
            break
        }
    }

    /// The notes' (type, contents) pairs, to write.
    var encoded: [(type: UInt32, bytes: [UInt8])] {
        var notes: [(UInt32, [UInt8])] = []
        if let maps { notes.append((Self.mapsType, Array(maps.utf8))) }
        if !threadNames.isEmpty {
            let lines = threadNames.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value)\n" }
            notes.append((Self.threadNamesType, Array(lines.joined().utf8)))
        }
        if !statements.isEmpty {
            notes.append((Self.statementsType, Array(statements.map { $0 + "\n" }.joined().utf8)))
        }
        if let time { notes.append((Self.timeType, Array(String(time).utf8))) }
        if let writer { notes.append((Self.writerType, Array(writer.utf8))) }
        return notes
    }
}

extension String {
    /// Without leading and trailing spaces and newlines.
    fileprivate var trimmingSpaces: String {
        String(
            drop { $0 == " " || $0 == "\n" }.reversed().drop { $0 == " " || $0 == "\n" }.reversed())
    }
}
