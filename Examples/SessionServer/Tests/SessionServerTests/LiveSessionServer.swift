import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import SessionServer

/// A ``SessionServer`` listening on an ephemeral loopback port, and a real HTTP client.
///
/// ``run(refresh:refreshInterval:onSessionEnded:_:)`` owns everything it starts: an event loop
/// group of its own, the server (in a `ServiceGroup`) and an `HTTPClient`, and shuts all three
/// down in that order (client, server, group) whether the body returns or throws. Every request
/// has a timeout and every wait a deadline, so a test never hangs.
struct LiveSessionServer {
    /// The server under test (its table and ledger).
    let server: SessionServer
    /// A client on the same event loop group.
    let client: HTTPClient
    /// `http://127.0.0.1:PORT`, with the port the system chose.
    let baseURL: String
    /// The group the server, its sessions' repeated tasks and the client run on.
    let eventLoopGroup: any EventLoopGroup

    /// How long one request may take, and how long a wait may last.
    static let requestTimeout = TimeAmount.seconds(30)
    static let deadline = Duration.seconds(60)

    enum Failure: Error, CustomStringConvertible {
        case didNotStart
        case unexpectedStatus(String, HTTPResponseStatus, String)

        var description: String {
            switch self {
            case .didNotStart: return "the server stopped before it listened"
            case .unexpectedStatus(let what, let status, let body):
                return "\(what): unexpected status \(status) (\(body))"
            }
        }
    }

    /// Starts a server with `refresh` on 127.0.0.1, port 0, runs `body`, then shuts down.
    ///
    /// - Parameters:
    ///   - refresh: The sessions' refresh strategy.
    ///   - refreshInterval: The time between refreshes (short, so a leak shows quickly).
    ///   - onSessionEnded: Passed to the server: called with each session `DELETE` ended.
    ///   - body: The test, given the running server.
    /// - Returns: What `body` returns.
    static func run<T>(
        refresh: RefreshStrategy, refreshInterval: Duration = .milliseconds(20),
        onSessionEnded: (@Sendable (Session) -> Void)? = nil,
        _ body: (LiveSessionServer) async throws -> T
    ) async throws -> T {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let outcome: Result<T, any Error>
        do {
            let server = SessionServer(
                configuration: .init(
                    host: "127.0.0.1", port: 0, refresh: refresh, refreshInterval: refreshInterval),
                onSessionEnded: onSessionEnded)
            outcome = .success(try await serve(server, on: group, body))
        } catch {
            outcome = .failure(error)
        }
        try await group.shutdownGracefully()
        return try outcome.get()
    }

    private static func serve<T>(
        _ server: SessionServer, on group: any EventLoopGroup,
        _ body: (LiveSessionServer) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "SessionServerTests")
        logger.logLevel = .warning
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = server.makeApplication(eventLoopGroup: group, logger: logger) { channel in
            if let port = channel.localAddress?.port { portContinuation.yield(port) }
            portContinuation.finish()
        }
        let services = ServiceGroup(configuration: .init(services: [app], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { portContinuation.finish() }
                try await services.run()
            }
            guard let port = await ports.first(where: { _ in true }) else {
                try await tasks.waitForAll()
                throw Failure.didNotStart
            }
            let client = HTTPClient(eventLoopGroup: group)
            let live = LiveSessionServer(
                server: server, client: client, baseURL: "http://127.0.0.1:\(port)",
                eventLoopGroup: group)
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body(live))
            } catch {
                outcome = .failure(error)
            }
            let clientShutdown: Result<Void, any Error>
            do {
                try await client.shutdown()
                clientShutdown = .success(())
            } catch {
                clientShutdown = .failure(error)
            }
            await services.triggerGracefulShutdown()
            try await tasks.waitForAll()
            try clientShutdown.get()
            return try outcome.get()
        }
    }

    /// Runs each event loop of the group one tick at a time until `condition` holds.
    ///
    /// Each round schedules a no-op 5 ms ahead on every loop and waits for it, so the loops run
    /// whatever became due (repeated refreshes, channel work) and a `Task` sleep loop gets its
    /// turn on the cooperative pool; then `condition` is checked again.
    ///
    /// - Parameter condition: What to wait for.
    /// - Returns: Whether `condition` held within ``deadline`` (60 s).
    func drive(until condition: () -> Bool) async throws -> Bool {
        let end = ContinuousClock.now.advanced(by: Self.deadline)
        while !condition() {
            guard ContinuousClock.now < end else { return false }
            for loop in eventLoopGroup.makeIterator() {
                try await loop.scheduleTask(in: .milliseconds(5)) {}.futureResult.get()
            }
        }
        return true
    }
}
