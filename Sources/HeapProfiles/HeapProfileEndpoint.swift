import HeapCensus

/// A heap profile endpoint for any HTTP server: what `/debug/pprof/heap` answers, as bytes and
/// headers, so a Hummingbird, Vapor or NIO handler only copies them into its response.
///
/// Go serves its heap profile at `/debug/pprof/heap`, and the tools a fleet already runs scrape
/// that path: `go tool pprof http://host:port/debug/pprof/heap`, Grafana Alloy's
/// `pyroscope.scrape` (its `profile.memory` target) and Parca's scrape configuration.
///
/// ```swift
/// let endpoint = HeapProfileEndpoint()
/// endpoint.enableSampling()                      // 512 KiB between samples
/// router.get("debug/pprof/heap") { _, _ in
///     let answer = endpoint.respond()
///     return Response(status: .init(code: answer.status), body: .init(byteBuffer: …))
/// }
/// ```
public struct HeapProfileEndpoint: Sendable {
    /// Where Go and the profilers that scrape it expect the heap profile.
    public static let defaultPath = "/debug/pprof/heap"

    /// The path to mount the endpoint at.
    public let path: String

    /// Creates an endpoint description.
    ///
    /// - Parameter path: The path to mount it at; ``defaultPath`` by default.
    public init(path: String = defaultPath) { self.path = path }

    /// Starts the census's sampled mode, which the profile reads, unless it already runs.
    ///
    /// - Parameter meanInterval: The mean bytes between samples (512 KiB by default).
    /// - Returns: Whether sampling is on (false under a sanitizer, or without the runtime's
    ///   allocation functions).
    @discardableResult
    public func enableSampling(
        meanInterval: Int = HeapCensus.defaultSamplingInterval
    ) -> Bool {
        HeapCensus.isSampling || HeapCensus.startSampling(meanInterval: meanInterval)
    }

    /// The answer to one request: the gzip'ed profile of the samples taken so far.
    ///
    /// - Returns: Status 200 with the profile, or 500 with a message when it could not be
    ///   compressed. When sampling never ran the profile is valid and empty, as Go's is with
    ///   `MemProfileRate = 0`.
    /// - Complexity: That of ``HeapProfile/gzipped()``.
    public func respond() -> HeapProfileResponse {
        HeapProfileResponse.profile(named: "heap") { try HeapProfile.sampled().gzipped() }
    }
}

/// What a heap profile endpoint answers: a status, headers and a body.
public struct HeapProfileResponse: Sendable {
    /// The HTTP status: 200, or 500 when the profile could not be made.
    public let status: Int
    /// The response's headers, in order.
    public let headers: [(name: String, value: String)]
    /// The body: a gzip'ed pprof profile (status 200), or a message.
    public let body: [UInt8]
}

extension HeapProfileResponse {
    /// A gzip'ed profile as an attachment named `name`, or status 500 with the error's text
    /// when `gzipped` throws.
    static func profile(named name: String, _ gzipped: () throws -> [UInt8])
        -> HeapProfileResponse
    {
        do {
            return HeapProfileResponse(
                status: 200,
                headers: [
                    ("Content-Type", "application/octet-stream"),
                    ("Content-Disposition", "attachment; filename=\"\(name)\""),
                    ("X-Content-Type-Options", "nosniff"),
                ],
                body: try gzipped())
        } catch {
            return HeapProfileResponse(
                status: 500, headers: [("Content-Type", "text/plain; charset=utf-8")],
                body: Array("\(error)\n".utf8))
        }
    }
}
