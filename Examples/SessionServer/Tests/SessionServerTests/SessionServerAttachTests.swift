import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ProcessAttach
import Testing

/// Attaches from outside to the built `session-server` (which links no RetainGraph product),
/// serving real HTTP on a loopback port: what `retain-graph attach PID --growth` does, through
/// the same library calls (two snapshots, `HeapComparison`).
@Suite("session-server seen from outside (retain-graph attach)", .timeLimit(.minutes(5)))
struct SessionServerAttachTests {
    /// Requests between the two attaches.
    static let requests = 20

    @Test(
        "N requests grow Session by N, with the path from its holder; the server serves on",
        arguments: ["repeated-task-leaking", "task-loop-leaking"])
    func growthAcrossRequests(refresh: String) async throws {
        let server = try ExternalSessionServer(refresh: refresh)
        defer { server.stop() }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await server.openAndEnd(1, with: client)  // first-request setup, before measuring
            let before = try HeapSnapshot.capture(processID: server.pid)
            #expect(try await server.counts(with: client).open == 0)  // still serving
            try await server.openAndEnd(Self.requests, with: client)
            let after = try HeapSnapshot.capture(processID: server.pid)
            let counts = try await server.counts(with: client)  // still serving
            #expect(counts.created == Self.requests + 1)
            #expect(counts.alive == Self.requests + 1)  // the leak, seen from the server itself

            let growth = HeapComparison(from: before, to: after)
            let sessions = try #require(
                growth.grown.first { $0.typeName == "SessionServer.Session" },
                "Session did not grow:\n\(growth.text)")
            #expect(sessions.growth == Self.requests)
            let path = try #require(sessions.samplePath, "no path:\n\(growth.text)")
            #expect(path.target?.typeName == "SessionServer.Session")
            #expect(path.references.last?.role.isCapture == true)
            if refresh == "task-loop-leaking" {
                #expect(path.holder.kind == .task)
                #expect(path.objects.first?.typeName == "Task")
            } else {
                // From the event loop's scheduled tasks, through the repeated task's closures.
                let types = path.objects.map(\.typeName)
                // Through the RepeatedTask: the object itself, or the closure context that
                // captures it. Both paths are as short and as strong; which one a run shows
                // depends on where the heap put them.
                #expect(types.contains("NIOPosix.SelectableEventLoop"))
                #expect(types.contains { $0.contains("RepeatedTask") }, "\(types)")
            }
            print(growth.text)
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}

/// The built `session-server`, started as its own process on 127.0.0.1 with a free port.
final class ExternalSessionServer: @unchecked Sendable {
    let process = Process()
    let port: Int
    var pid: Int32 { process.processIdentifier }

    struct Counts: Decodable {
        var open: Int
        var alive: Int
        var created: Int
    }

    enum Failure: Error {
        case notBuilt
        case didNotStart(String)
        case unexpectedStatus(String, HTTPResponseStatus)
    }

    init(refresh: String) throws {
        guard let executable = SessionServerExecutableTests.executableURL() else {
            throw Failure.notBuilt
        }
        // Through `stdbuf -oL`: its first line says which port it chose, and `print` into a
        // pipe would keep that line in a buffer. (stdbuf execs it: the pid is the server's.)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments = [
            "-oL", executable.path, "--host", "127.0.0.1", "--port", "0", "--refresh", refresh,
        ]
        process.environment = [:]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // "session-server: http://127.0.0.1:PORT, refresh NAME": it listens once printed.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }  // end of output: it exited
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let address = text.range(of: "http://127.0.0.1:"),
            let port = Int(text[address.upperBound...].prefix(while: \.isNumber))
        else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure.didNotStart(text)
        }
        self.port = port
    }

    /// Kills the server (SIGKILL: a test's children inherit a mask that blocks SIGTERM).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Opens `count` sessions and ends each at once, checking every answer.
    func openAndEnd(_ count: Int, with client: HTTPClient) async throws {
        for index in 0..<count {
            var open = HTTPClientRequest(url: "http://127.0.0.1:\(port)/sessions")
            open.method = .POST
            open.headers.add(name: "content-type", value: "application/json")
            open.body = .bytes(ByteBuffer(string: #"{"user":"user-\#(index)"}"#))
            let (status, data) = try await send(open, with: client)
            guard status == .created else { throw Failure.unexpectedStatus("POST", status) }
            struct Opened: Decodable { var id: String }
            let id = try JSONDecoder().decode(Opened.self, from: data).id
            var end = HTTPClientRequest(url: "http://127.0.0.1:\(port)/sessions/\(id)")
            end.method = .DELETE
            let ended = try await send(end, with: client).status
            guard ended == .noContent else { throw Failure.unexpectedStatus("DELETE", ended) }
        }
    }

    /// `GET /sessions`.
    func counts(with client: HTTPClient) async throws -> Counts {
        let (status, data) = try await send(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/sessions"), with: client)
        guard status == .ok else { throw Failure.unexpectedStatus("GET", status) }
        return try JSONDecoder().decode(Counts.self, from: data)
    }

    private func send(_ request: HTTPClientRequest, with client: HTTPClient) async throws
        -> (status: HTTPResponseStatus, data: Data)
    {
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status, Data(body.readableBytesView))
    }
}
