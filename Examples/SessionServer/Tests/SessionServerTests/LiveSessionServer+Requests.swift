import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SessionServer

/// The server's answers, as a client decodes them.
struct OpenedSession: Decodable, Equatable {
    var id: String
    var user: String
    var refresh: String
}

/// `GET /sessions`: sessions in the table, session objects alive, sessions created.
struct SessionCounts: Decodable, Equatable {
    var open: Int
    var alive: Int
    var created: Int
}

extension LiveSessionServer {
    /// `POST /sessions` for `user`; fails unless the server answers `201 Created`.
    func openSession(user: String) async throws -> OpenedSession {
        var request = HTTPClientRequest(url: baseURL + "/sessions")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        let body = try JSONEncoder().encode(["user": user])
        request.body = .bytes(ByteBuffer(bytes: body))
        let (status, data) = try await send(request)
        guard status == .created else {
            throw Failure.unexpectedStatus(
                "POST /sessions", status, String(decoding: data, as: UTF8.self))
        }
        return try JSONDecoder().decode(OpenedSession.self, from: data)
    }

    /// `DELETE /sessions/:id`; returns the status (`204` when it was open, `404` otherwise).
    func endSession(id: String) async throws -> HTTPResponseStatus {
        var request = HTTPClientRequest(url: baseURL + "/sessions/" + id)
        request.method = .DELETE
        return try await send(request).status
    }

    /// `GET /sessions`.
    func counts() async throws -> SessionCounts {
        let (status, data) = try await send(HTTPClientRequest(url: baseURL + "/sessions"))
        guard status == .ok else {
            throw Failure.unexpectedStatus(
                "GET /sessions", status, String(decoding: data, as: UTF8.self))
        }
        return try JSONDecoder().decode(SessionCounts.self, from: data)
    }

    /// Opens a session for `user` and ends it at once: one repetition of the work whose
    /// leftovers a growth check counts. Fails unless both answers are the expected ones.
    func openAndEndSession(user: String) async throws -> OpenedSession {
        let session = try await openSession(user: user)
        let status = try await endSession(id: session.id)
        guard status == .noContent else {
            throw Failure.unexpectedStatus("DELETE /sessions/\(session.id)", status, "")
        }
        return session
    }

    /// Opens `count` sessions one request after another (users `user-1`…), then ends them all,
    /// checking every answer; returns the sessions.
    func openAndEndSessions(count: Int) async throws -> [OpenedSession] {
        var opened: [OpenedSession] = []
        for index in 1...count {
            opened.append(try await openSession(user: "user-\(index)"))
        }
        for session in opened {
            let status = try await endSession(id: session.id)
            guard status == .noContent else {
                throw Failure.unexpectedStatus("DELETE /sessions/\(session.id)", status, "")
            }
        }
        return opened
    }

    private func send(_ request: HTTPClientRequest) async throws -> (
        status: HTTPResponseStatus, data: Data
    ) {
        let response = try await client.execute(request, timeout: Self.requestTimeout)
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status, Data(body.readableBytesView))
    }
}
