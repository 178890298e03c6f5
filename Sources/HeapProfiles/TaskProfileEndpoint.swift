import HeapCensus

/// A task profile endpoint for any HTTP server, beside the heap profile: what
/// `/debug/pprof/tasks` answers, as bytes and headers (see ``TaskProfile``).
///
/// Go serves where its goroutines wait at `/debug/pprof/goroutine`; the same scrapers read this
/// path (`go tool pprof http://host:port/debug/pprof/tasks`, Pyroscope's and Parca's scrape
/// configurations with a custom profile path), so a fleet's profiler shows where tasks pile up.
///
/// ```swift
/// let tasks = TaskProfileEndpoint()
/// tasks.enableCensus()                           // the census must know every task
/// router.get("debug/pprof/tasks") { _, _ in
///     let answer = tasks.respond()
///     return Response(status: .init(code: answer.status), body: .init(byteBuffer: …))
/// }
/// ```
///
/// Or one route for both profiles: ``DebugProfiles/response(forPath:)``.
public struct TaskProfileEndpoint: Sendable {
    /// Where the task profile is served by default.
    public static let defaultPath = "/debug/pprof/tasks"

    /// The path to mount the endpoint at.
    public let path: String

    /// Creates an endpoint description.
    ///
    /// - Parameter path: The path to mount it at; ``defaultPath`` by default.
    public init(path: String = defaultPath) { self.path = path }

    /// Starts the heap census, which knows every task the profile shows, unless it runs.
    ///
    /// The census records every Swift heap object from then on (about 8–16 bytes per live
    /// object, and a table update per allocation); tasks made before it started are not
    /// shown. `RETAINGRAPH_CENSUS=1` at launch starts it before the program runs.
    ///
    /// - Returns: Whether the census records.
    @discardableResult
    public func enableCensus() -> Bool {
        HeapCensus.isRunning || HeapCensus.start()
    }

    /// The answer to one request: the gzip'ed profile of the tasks alive now.
    ///
    /// - Returns: Status 200 with the profile (empty when the census does not run or this
    ///   process's tasks cannot be read), or 500 with a message when it could not be
    ///   compressed.
    /// - Complexity: That of ``TaskProfile/current()``.
    public func respond() -> HeapProfileResponse {
        HeapProfileResponse.profile(named: "tasks") { try TaskProfile.current().gzipped() }
    }
}

/// The debug profiles of this package behind one route: `/debug/pprof/heap` and
/// `/debug/pprof/tasks`.
///
/// ```swift
/// router.get("debug/pprof/:profile") { request, _ in
///     guard let answer = DebugProfiles.response(forPath: request.uri.path) else { … 404 … }
///     …
/// }
/// ```
public enum DebugProfiles {
    /// The answer for `path` (its query left out): the heap profile at
    /// ``HeapProfileEndpoint/defaultPath``, the task profile at
    /// ``TaskProfileEndpoint/defaultPath``; nil for any other path.
    ///
    /// - Parameter path: The request's path.
    /// - Returns: The answer, or nil.
    public static func response(forPath path: String) -> HeapProfileResponse? {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        switch bare {
        case HeapProfileEndpoint.defaultPath: return HeapProfileEndpoint().respond()
        case TaskProfileEndpoint.defaultPath: return TaskProfileEndpoint().respond()
        default: return nil
        }
    }
}
