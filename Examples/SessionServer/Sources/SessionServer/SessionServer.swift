public import Hummingbird
public import Logging
public import NIOCore

/// A small Hummingbird server whose sessions refresh themselves, and leak or not depending on
/// its ``SessionServerConfiguration/refresh`` strategy.
///
/// Routes:
/// - `POST /sessions` with `{"user": "ada"}`: opens a session, starts its refresh, answers
///   `201` with `{"id":"s1","refresh":"repeated-task-leaking","user":"ada"}`.
/// - `DELETE /sessions/:id`: ends the session and removes it from the table (`204`), or `404`.
/// - `GET /sessions`: `{"alive":20,"created":20,"open":0}`: the table's count against the
///   session objects still in memory. `alive` above `open` is the leak, seen from outside.
///
/// ```swift
/// let server = SessionServer(configuration: .init(port: 0, refresh: .taskLoopLeaking))
/// let app = server.makeApplication(onServerRunning: { print($0.localAddress!) })
/// try await app.runService()
/// ```
public struct SessionServer: Sendable {
    /// Where the server listens and how its sessions refresh.
    public let configuration: SessionServerConfiguration
    /// The open sessions.
    public let sessions: SessionTable
    /// The count of session objects still alive.
    public let ledger: SessionLedger
    /// Called with each session right after `DELETE` ended it and removed it from the table,
    /// when the session is expected to die (tests hand it to a `LeakWatcher`).
    public let onSessionEnded: (@Sendable (Session) -> Void)?

    /// Creates a server (not yet running: see ``makeApplication(eventLoopGroup:logger:onServerRunning:)``).
    ///
    /// - Parameters:
    ///   - configuration: Where to listen and how sessions refresh.
    ///   - onSessionEnded: Called with each ended session; must not keep it.
    public init(
        configuration: SessionServerConfiguration,
        onSessionEnded: (@Sendable (Session) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.sessions = SessionTable()
        self.ledger = SessionLedger()
        self.onSessionEnded = onSessionEnded
    }

    /// The router with the session routes.
    ///
    /// - Returns: A router for ``SessionRequestContext``.
    public func makeRouter() -> Router<SessionRequestContext> {
        let router = Router(context: SessionRequestContext.self)
        router.post("sessions") { request, context in
            let body = try await request.decode(as: OpenSessionRequest.self, context: context)
            let session = self.open(user: body.user, on: context.eventLoop)
            let response = SessionResponse(
                id: session.id, user: session.user, refresh: configuration.refresh.rawValue)
            return EditedResponse(status: .created, response: response)
        }
        router.delete("sessions/:id") { _, context -> HTTPResponse.Status in
            let id = try context.parameters.require("id")
            return self.end(id: id) ? .noContent : .notFound
        }
        router.get("sessions") { _, _ in
            SessionCountsResponse(
                open: sessions.count, alive: ledger.liveSessions,
                created: ledger.createdSessions)
        }
        return router
    }

    /// The Hummingbird application serving ``makeRouter()`` at the configured address.
    ///
    /// - Parameters:
    ///   - eventLoopGroup: The group the server (and the sessions' repeated tasks) run on;
    ///     NIO's singleton by default. The caller shuts a group it created down.
    ///   - logger: The server's logger.
    ///   - onServerRunning: Called once the server listens, with its channel (whose
    ///     `localAddress` has the bound port when the configuration asked for port 0).
    /// - Returns: The application; run it with `runService()` or in a `ServiceGroup`.
    public func makeApplication(
        eventLoopGroup: (any EventLoopGroup)? = nil,
        logger: Logger = Logger(label: "SessionServer"),
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: makeRouter(),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "SessionServer"),
            onServerRunning: onServerRunning,
            eventLoopGroupProvider: eventLoopGroup.map { .shared($0) } ?? .singleton,
            logger: logger)
    }

    /// Opens a session for `user` and starts its refresh on `loop`.
    func open(user: String, on loop: any EventLoop) -> Session {
        let session = sessions.open(user: user, ledger: ledger)
        session.startRefreshing(
            configuration.refresh, on: loop, every: configuration.refreshInterval)
        return session
    }

    /// Ends the session with `id`; returns whether it was open.
    func end(id: String) -> Bool {
        guard let session = sessions.remove(id: id) else { return false }
        session.end()
        onSessionEnded?(session)
        return true
    }
}
