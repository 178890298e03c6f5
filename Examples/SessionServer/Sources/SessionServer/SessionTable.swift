import NIOConcurrencyHelpers

/// The server's open sessions, by identifier.
///
/// The only owner a session is meant to have: ending a session removes it from here, and with
/// a fixed ``RefreshStrategy`` that is the last strong reference.
///
/// ```swift
/// let table = SessionTable()
/// let session = table.open(user: "ada", ledger: ledger)
/// table.end(id: session.id)  // the removed session, or nil for an unknown id
/// ```
public final class SessionTable: Sendable {
    private struct State {
        var sessions: [String: Session] = [:]
        var nextID: UInt64 = 1
    }

    private let state = NIOLockedValueBox(State())

    /// Creates an empty table.
    public init() {}

    /// The number of open sessions.
    public var count: Int { state.withLockedValue { $0.sessions.count } }

    /// Creates a session for `user`, stores it and returns it.
    ///
    /// - Parameters:
    ///   - user: The user who opens the session.
    ///   - ledger: The ledger the session counts itself in.
    /// - Returns: The new session, with an identifier such as `s1`.
    public func open(user: String, ledger: SessionLedger) -> Session {
        state.withLockedValue { state in
            let session = Session(id: "s\(state.nextID)", user: user, ledger: ledger)
            state.nextID += 1
            state.sessions[session.id] = session
            return session
        }
    }

    /// Removes the session with `id` and returns it, so the caller can end it.
    ///
    /// - Parameter id: The session's identifier, as the client sent it.
    /// - Returns: The removed session, or `nil` when no open session has that identifier.
    public func remove(id: String) -> Session? {
        state.withLockedValue { $0.sessions.removeValue(forKey: id) }
    }
}
