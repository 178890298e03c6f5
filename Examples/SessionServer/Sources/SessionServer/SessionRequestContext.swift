public import Foundation
public import Hummingbird
public import NIOCore

/// The request context of the session server: Hummingbird's basics plus the connection's
/// event loop, which a session's repeated refresh runs on.
///
/// ```swift
/// let router = Router(context: SessionRequestContext.self)
/// router.get("loop") { _, context in "\(context.eventLoop)" }
/// ```
public struct SessionRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger, parameters, endpoint path).
    public var coreContext: CoreRequestContextStorage
    /// The event loop of the connection the request arrived on.
    public let eventLoop: any EventLoop

    /// Encodes responses as JSON with sorted keys, so answers read the same on every run.
    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// Creates the context of one request.
    ///
    /// - Parameter source: The connection's channel and logger.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.eventLoop = source.channel.eventLoop
    }
}

/// The body of `POST /sessions`.
struct OpenSessionRequest: Decodable {
    /// Who opens the session.
    var user: String
}

/// A session as the API returns it.
struct SessionResponse: ResponseCodable {
    /// The session's identifier, for `DELETE /sessions/:id`.
    var id: String
    /// The user who opened it.
    var user: String
    /// How it refreshes (the server's ``RefreshStrategy``).
    var refresh: String
}

/// The body of `GET /sessions`: what the table says against what memory says.
struct SessionCountsResponse: ResponseCodable {
    /// Sessions in the server's table (opened, not ended).
    var open: Int
    /// Session objects still alive: `open` plus any that ended but leaked.
    var alive: Int
    /// Sessions created since the server started.
    var created: Int
}
