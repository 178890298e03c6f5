/// A session with a server: it holds its connection, and the connection holds it back until
/// ``close()`` breaks the cycle. Forgetting to close a session leaks both.
public final class Session {
    /// Whom the session is for.
    public let user: String
    var connection: Connection?

    init(user: String) {
        self.user = user
        let connection = Connection()
        connection.session = self
        self.connection = connection
    }

    /// Ends the session: the connection lets go of it.
    public func close() {
        connection?.session = nil
        connection = nil
    }
}

/// The session's connection.
final class Connection {
    var session: Session?
    let buffer = [UInt8](repeating: 0, count: 256)
}

/// Opens sessions: the test calls `Client.openSession(for:)`, which calls the builder, which
/// calls the initializers. Three calls deep from the test's line to `Session.init`.
public enum Client {
    /// Opens a session for `user`; the caller must close it.
    @inline(never)
    public static func openSession(for user: String) -> Session {
        SessionBuilder(user: user).build()
    }
}

/// Builds a session (a step between the client and the initializers).
struct SessionBuilder {
    let user: String

    @inline(never)
    func build() -> Session {
        Session(user: user)
    }
}
