import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// One user's session: opened by `POST /sessions`, ended by `DELETE /sessions/:id`.
///
/// A session refreshes itself at a fixed interval while it is open (``RefreshStrategy`` says
/// with which primitive, and whether that refresh stops when the session ends). Ending a session
/// removes it from the server's table; whether the object then dies depends only on the
/// strategy.
///
/// ```swift
/// let session = Session(id: "s1", user: "ada", ledger: SessionLedger())
/// session.startRefreshing(.taskLoopCancelled, on: loop, every: .seconds(1))
/// session.end()  // cancels the Task: the session dies once the Task returns
/// ```
public final class Session: Sendable {
    /// The session's identifier, as the API returns it.
    public let id: String
    /// The user who opened the session.
    public let user: String
    /// How this session refreshes; fixed when the refresh starts.
    let strategy = NIOLockedValueBox<RefreshStrategy?>(nil)
    /// The running refresh, kept so that ``end()`` can cancel it.
    let refresher = NIOLockedValueBox<Refresher?>(nil)
    private let ledger: SessionLedger
    private let refreshes = Atomic<Int>(0)
    private let ended = Atomic<Bool>(false)
    private let refreshedAfterEnd = Atomic<Bool>(false)

    /// A handle on the running refresh.
    enum Refresher: Sendable {
        /// A task repeating on an event loop.
        case repeatedTask(RepeatedTask)
        /// A `Task` running a sleep loop.
        case task(Task<Void, Never>)
    }

    /// Creates a session and counts it in `ledger`.
    ///
    /// - Parameters:
    ///   - id: The session's identifier.
    ///   - user: The user who opened it.
    ///   - ledger: The server's ledger of live sessions.
    public init(id: String, user: String, ledger: SessionLedger) {
        self.id = id
        self.user = user
        self.ledger = ledger
        ledger.sessionCreated()
    }

    deinit {
        ledger.sessionDeinitialised()
    }

    /// The number of times the session has been refreshed.
    public var refreshCount: Int { refreshes.load(ordering: .acquiring) }

    /// Whether ``end()`` has been called.
    public var isEnded: Bool { ended.load(ordering: .acquiring) }

    /// Refreshes the session's credentials (here: counts the refresh).
    ///
    /// The first refresh after the session ended is reported to the ledger: it is the sign
    /// that something still holds the session.
    func refresh() {
        refreshes.add(1, ordering: .relaxed)
        if isEnded, !refreshedAfterEnd.exchange(true, ordering: .acquiringAndReleasing) {
            ledger.endedSessionRefreshed()
        }
    }

    /// Ends the session: marks it ended and, if its strategy says so, cancels its refresh.
    ///
    /// Under a leaking strategy this is where the `cancel()` call is missing: the refresh goes
    /// on, and so does the session.
    public func end() {
        ended.store(true, ordering: .releasing)
        guard strategy.withLockedValue({ $0 })?.cancelsOnEnd == true else { return }
        let running = refresher.withLockedValue { refresher in
            defer { refresher = nil }
            return refresher
        }
        switch running {
        case .repeatedTask(let task): task.cancel()
        case .task(let task): task.cancel()
        case nil: break
        }
    }
}
