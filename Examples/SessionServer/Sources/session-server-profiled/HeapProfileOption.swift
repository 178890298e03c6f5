/// The profiled server's one option beyond ``SessionServerConfiguration``'s: whether to sample
/// the heap and serve `/debug/pprof/heap`.
///
/// | argument | environment variable | values |
/// | --- | --- | --- |
/// | `--heap-profile` | `SESSION_SERVER_HEAP_PROFILE` | `off` (default), `on` (512 KiB between samples), or a mean interval in bytes |
///
/// The option is taken out of the arguments; the rest go to the server's own configuration.
struct HeapProfileOption: Equatable {
    /// The mean bytes between samples, or nil when the endpoint is off.
    var meanInterval: Int?

    /// Reads the option and returns the arguments left for the server's configuration.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program's name.
    ///   - environment: The process's environment.
    /// - Returns: The option and the other arguments.
    /// - Throws: ``HeapProfileOptionError`` for a missing or unreadable value.
    static func parse(
        arguments: [String], environment: [String: String]
    ) throws -> (option: HeapProfileOption, rest: [String]) {
        var value = environment["SESSION_SERVER_HEAP_PROFILE"]
        var rest: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument == "--heap-profile" else {
                rest.append(argument)
                continue
            }
            guard let given = remaining.popFirst() else { throw HeapProfileOptionError(value: nil) }
            value = given
        }
        switch value?.lowercased() {
        case nil, "off", "0", "no", "false": return (HeapProfileOption(meanInterval: nil), rest)
        case "on", "yes", "true": return (HeapProfileOption(meanInterval: 512 * 1024), rest)
        case let text?:
            guard let bytes = Int(text), bytes > 0 else {
                throw HeapProfileOptionError(value: text)
            }
            return (HeapProfileOption(meanInterval: bytes), rest)
        }
    }
}

/// A `--heap-profile` value that is neither `on`, `off` nor a positive number of bytes.
struct HeapProfileOptionError: Error, CustomStringConvertible {
    /// The value given, or nil when the option came last with none.
    var value: String?

    var description: String {
        guard let value else { return "--heap-profile needs a value (on, off or bytes)" }
        return "invalid value \(value) for --heap-profile (on, off or a number of bytes)"
    }
}
