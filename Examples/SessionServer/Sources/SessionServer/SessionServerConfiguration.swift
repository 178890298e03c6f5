/// Where the session server listens, and how its sessions refresh.
///
/// Built in code, or read from command-line arguments and the environment by
/// ``init(arguments:environment:)``: arguments win over environment variables, which win over
/// the defaults.
///
/// | argument | environment variable | default |
/// | --- | --- | --- |
/// | `--host` | `SESSION_SERVER_HOST` | `127.0.0.1` |
/// | `--port` | `SESSION_SERVER_PORT` | `8080` (`0`: any free port) |
/// | `--refresh` | `SESSION_SERVER_REFRESH` | `repeated-task-leaking` |
/// | `--refresh-ms` | `SESSION_SERVER_REFRESH_MS` | `1000` |
///
/// ```swift
/// let configuration = SessionServerConfiguration(port: 0, refresh: .taskLoopWeak)
/// ```
public struct SessionServerConfiguration: Sendable, Equatable {
    /// The address to bind to.
    public var host: String
    /// The port to bind to; `0` asks the system for a free one.
    public var port: Int
    /// How sessions refresh, and whether ending one stops its refresh.
    public var refresh: RefreshStrategy
    /// The time between two refreshes of a session.
    public var refreshInterval: Duration

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - host: The address to bind to.
    ///   - port: The port to bind to; `0` for any free port.
    ///   - refresh: The refresh strategy; the leaking repeated task by default.
    ///   - refreshInterval: The time between two refreshes; clamped to at least a millisecond.
    public init(
        host: String = "127.0.0.1", port: Int = 8080,
        refresh: RefreshStrategy = .repeatedTaskLeaking,
        refreshInterval: Duration = .seconds(1)
    ) {
        self.host = host
        self.port = port
        self.refresh = refresh
        self.refreshInterval = max(refreshInterval, .milliseconds(1))
    }

    /// Reads a configuration from command-line arguments and environment variables.
    ///
    /// ```swift
    /// let configuration = try SessionServerConfiguration(
    ///     arguments: ["--refresh", "task-loop-cancelled", "--port", "0"], environment: [:])
    /// ```
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program's name (`--name value` pairs).
    ///   - environment: The process's environment.
    /// - Throws: ``SessionServerConfigurationError`` for an unknown option, a missing value,
    ///   a port outside 0...65535, an unknown strategy or an interval that is not a positive
    ///   number of milliseconds.
    public init(arguments: [String], environment: [String: String]) throws {
        var values: [String: String] = [:]
        for (option, variable) in Self.options {
            values[option] = environment[variable]
        }
        var remaining = arguments[...]
        while let option = remaining.popFirst() {
            guard Self.options[option] != nil else {
                throw SessionServerConfigurationError.unknownOption(option)
            }
            guard let value = remaining.popFirst() else {
                throw SessionServerConfigurationError.missingValue(option)
            }
            values[option] = value
        }
        self.init()
        if let host = values["--host"] { self.host = host }
        if let text = values["--port"] {
            guard let port = Int(text), (0...65535).contains(port) else {
                throw SessionServerConfigurationError.invalidValue("--port", text)
            }
            self.port = port
        }
        if let text = values["--refresh"] {
            guard let refresh = RefreshStrategy(rawValue: text) else {
                throw SessionServerConfigurationError.invalidValue("--refresh", text)
            }
            self.refresh = refresh
        }
        if let text = values["--refresh-ms"] {
            guard let milliseconds = Int(text), milliseconds > 0 else {
                throw SessionServerConfigurationError.invalidValue("--refresh-ms", text)
            }
            self.refreshInterval = .milliseconds(milliseconds)
        }
    }

    private static let options = [
        "--host": "SESSION_SERVER_HOST", "--port": "SESSION_SERVER_PORT",
        "--refresh": "SESSION_SERVER_REFRESH", "--refresh-ms": "SESSION_SERVER_REFRESH_MS",
    ]
}

/// Why a ``SessionServerConfiguration`` could not be read.
public enum SessionServerConfigurationError: Error, Equatable, CustomStringConvertible {
    /// An argument that is not one of the known options.
    case unknownOption(String)
    /// An option given last, with no value after it.
    case missingValue(String)
    /// An option whose value cannot be used.
    case invalidValue(String, String)

    /// A message for a person.
    public var description: String {
        switch self {
        case .unknownOption(let option):
            return "unknown option \(option) (known: --host, --port, --refresh, --refresh-ms)"
        case .missingValue(let option):
            return "\(option) needs a value"
        case .invalidValue("--refresh", let value):
            let known = RefreshStrategy.allCases.map(\.rawValue).joined(separator: ", ")
            return "unknown refresh strategy \(value) (known: \(known))"
        case .invalidValue(let option, let value):
            return "invalid value \(value) for \(option)"
        }
    }
}
