/// What `llvm-symbolizer --output-style=JSON` says about each address it was given.
///
/// Given addresses as arguments, it prints one JSON array with an object per address; read
/// from standard input, one object per line. Both are accepted. An object is either
/// `{"Address":"0x…","ModuleName":…,"Symbol":[{…}, …]}`, with one symbol per frame
/// (inlined calls first, the real function last), or `{"Address":…,"Error":{"Message":…}}`
/// when the image could not be read.
enum SymbolizerOutput {
    /// The answer for one address.
    struct Entry: Equatable {
        /// The file address the answer is for, when the symbolizer echoed it.
        var address: UInt?
        /// The symbolizer's error message, when it could not read the image.
        var error: String?
        /// The frames, innermost first; empty with an error.
        var frames: [Frame] = []
    }

    /// One frame of an answer. Empty strings and zeros stand for "unknown", as the symbolizer
    /// prints them.
    struct Frame: Equatable {
        /// The function's linkage (mangled) name.
        var function: String
        /// The source file's path.
        var file: String
        /// The line, 0 if unknown.
        var line: Int
        /// The column, 0 if unknown.
        var column: Int
        /// The file address where the function starts, if known.
        var start: UInt?
    }

    /// Why the output could not be read.
    struct Unreadable: Error, Equatable {
        /// What was wrong.
        var reason: String
    }

    /// The answers in `output`, in the order the addresses were given.
    ///
    /// - Parameter output: What the symbolizer printed.
    /// - Returns: One entry per address.
    /// - Throws: ``Unreadable`` when the output is not the symbolizer's JSON.
    /// - Complexity: O(*n*) in the length of `output`.
    static func entries(in output: [UInt8]) throws(Unreadable) -> [Entry] {
        let values: [JSONValue]
        do {
            values = try JSONReader.values(in: output)
        } catch {
            throw Unreadable(reason: "not JSON at byte \(error.offset)")
        }
        var entries: [Entry] = []
        for value in values {
            for object in value.array ?? [value] {
                entries.append(try entry(object))
            }
        }
        return entries
    }

    private static func entry(_ object: JSONValue) throws(Unreadable) -> Entry {
        guard case .object = object else { throw Unreadable(reason: "an answer is no object") }
        var entry = Entry()
        if let text = object["Address"]?.string {
            guard let address = hexAddress(text) else {
                throw Unreadable(reason: "bad address \(text)")
            }
            entry.address = address
        }
        if let error = object["Error"] {
            entry.error = error["Message"]?.string ?? "unknown error"
            return entry
        }
        guard let symbols = object["Symbol"]?.array else {
            throw Unreadable(reason: "an answer has neither Symbol nor Error")
        }
        for symbol in symbols {
            guard case .object = symbol else { throw Unreadable(reason: "a symbol is no object") }
            entry.frames.append(
                Frame(
                    function: symbol["FunctionName"]?.string ?? "",
                    file: symbol["FileName"]?.string ?? "",
                    line: max(symbol["Line"]?.int ?? 0, 0),
                    column: max(symbol["Column"]?.int ?? 0, 0),
                    start: symbol["StartAddress"]?.string.flatMap(hexAddress)
                ))
        }
        return entry
    }

    /// `0x1f` → 31; `nil` for anything else (the symbolizer prints `""` when unknown).
    static func hexAddress(_ text: String) -> UInt? {
        guard text.hasPrefix("0x") || text.hasPrefix("0X") else { return nil }
        return UInt(text.dropFirst(2), radix: 16)
    }
}
