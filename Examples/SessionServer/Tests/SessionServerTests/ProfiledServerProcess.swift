import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The built `session-server-profiled`, started as a person starts it: a real process on an
/// ephemeral loopback port, driven with real HTTP requests.
///
/// ``run(arguments:_:)`` starts it, waits (with a deadline) for the line that gives its port,
/// runs the body, and ends the process with SIGTERM (then SIGKILL after a deadline) whatever
/// the body did.
struct ProfiledServerProcess {
    /// `http://127.0.0.1:PORT`.
    let baseURL: String
    /// The server's process id (to attach to it from outside).
    let processID: Int32
    /// The client the body's requests go through.
    let client: HTTPClient

    enum Failure: Error, CustomStringConvertible {
        case notFound
        case didNotStart(String)
        case unexpectedStatus(String, HTTPResponseStatus)

        var description: String {
            switch self {
            case .notFound: return "session-server-profiled not found next to the tests"
            case .didNotStart(let output): return "the server did not say its port: \(output)"
            case .unexpectedStatus(let what, let status): return "\(what): status \(status)"
            }
        }
    }

    /// `session-server-profiled` in the build products directory, next to the test bundle.
    static let executableURL: URL? = {
        var directories = Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }
            .map { $0.bundleURL.deletingLastPathComponent() }
        directories.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories.map { $0.appendingPathComponent("session-server-profiled") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs the server with `arguments` (plus `--host 127.0.0.1 --port 0`) around `body`.
    static func run<T>(
        arguments: [String], _ body: (ProfiledServerProcess) async throws -> T
    ) async throws -> T {
        guard let url = executableURL else { throw Failure.notFound }
        let process = Process()
        process.executableURL = url
        process.arguments = arguments + ["--host", "127.0.0.1", "--port", "0"]
        process.environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("SESSION_SERVER_") && !$0.key.hasPrefix("RETAINGRAPH_")
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                continuation.finish()
                handle.readabilityHandler = nil
            } else {
                continuation.yield(String(decoding: data, as: UTF8.self))
            }
        }
        try process.run()
        defer { stop(process) }
        let port = try await port(from: lines)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let outcome: Result<T, any Error>
        do {
            outcome = .success(
                try await body(
                    .init(
                        baseURL: "http://127.0.0.1:\(port)",
                        processID: process.processIdentifier, client: client)))
        } catch {
            outcome = .failure(error)
        }
        try await client.shutdown()
        return try outcome.get()
    }

    /// The port from `session-server-profiled: http://127.0.0.1:PORT, …`, within 60 s.
    private static func port(from chunks: AsyncStream<String>) async throws -> Int {
        try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask {
                var text = ""
                for await chunk in chunks {
                    text += chunk
                    if let match = text.firstMatch(of: /http:\/\/127\.0\.0\.1:(\d+)/) {
                        return Int(match.1)
                    }
                }
                throw Failure.didNotStart(text)
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))  // the deadline, not a wait for work
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let port = first else { throw Failure.didNotStart("no port within 60 s") }
            return port
        }
    }

    private static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Sends `method path` with an optional JSON body; returns the status and body.
    ///
    /// The default timeout is 30 s; a heap profile's first request symbolicates every sampled
    /// address of a debug build cold, which takes minutes on a loaded machine.
    func send(
        _ method: HTTPMethod, _ path: String, json: [String: String]? = nil,
        timeout: TimeAmount = .seconds(30)
    ) async throws -> (HTTPResponseStatus, [UInt8]) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let json {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(json)))
        }
        let response = try await client.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 64 << 20)
        return (response.status, Array(buffer: body))
    }

    /// Opens `count` sessions and ends each at once, checking every answer.
    func openAndEnd(_ count: Int) async throws {
        for index in 0..<count {
            let (status, body) = try await send(.POST, "/sessions", json: ["user": "u\(index)"])
            guard status == .created,
                let opened = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
                let id = opened["id"] as? String
            else { throw Failure.unexpectedStatus("POST", status) }
            let (ended, _) = try await send(.DELETE, "/sessions/\(id)")
            guard ended == .noContent else { throw Failure.unexpectedStatus("DELETE", ended) }
        }
    }
}
