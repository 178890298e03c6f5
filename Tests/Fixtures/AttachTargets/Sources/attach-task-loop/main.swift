// A refresher whose `Task` sleep loop captures it strongly and is never cancelled: after the
// program drops it, the concurrency runtime still runs the task, and the task holds it.
import FixtureSupport

final class TaskRefresher: @unchecked Sendable {
    var refreshes = 0
    var task: Task<Void, Never>?

    func start() {
        task = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
                self.refreshes += 1
            }
        }
    }
}

do {
    let refresher = TaskRefresher()
    refresher.start()
}
announceReady()
runForever()
