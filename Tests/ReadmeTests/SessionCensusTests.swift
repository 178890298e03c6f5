// The census code of README.md's "Use it in your package", verbatim between the markers
// (RepositoryTests checks that README.md shows exactly this).
// README:begin
import HeapCensus  // linked: the census records from launch in a test process
import LeakTracking
import RetainGraphTesting
import Testing

/// Your code: a session that refreshes itself from a `Task` loop.
final class Session: @unchecked Sendable {
    var refresh: Task<Void, Never>?

    func start() {
        refresh = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(60))
                self.touch()
            }
        }
    }

    func close() {
        refresh?.cancel()
    }

    func touch() {}
}

@Test(.detectsLeaks)
func closingTheSessionReleasesIt() {
    let session = Session()
    session.start()
    session.close()
    LeakWatcher.current.expectDeallocation(of: session, reason: "session closed")
}
// README:end
