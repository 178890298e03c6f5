import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Talks to a server through a `URLSession` whose delegate it is.
public final class APIClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private var session: URLSession?

    /// Creates a client; ``start()`` opens its session.
    public override init() {}

    /// Opens the session, with this client as its delegate.
    public func start() {
        session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
    }

    /// Stops: a session keeps its delegate until it is invalidated.
    public func stop() {
        session?.invalidateAndCancel()
    }
}
