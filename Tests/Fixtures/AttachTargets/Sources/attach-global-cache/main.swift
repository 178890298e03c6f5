// Sessions put in a global cache and never removed: the global array holds them all.
import FixtureSupport

final class CachedSession {
    let user: String
    let token: [UInt8]

    init(user: String) {
        self.user = user
        token = Array(repeating: 7, count: 32)
    }
}

var sessionCache: [CachedSession] = []

for index in 0..<firstArgument(or: 20) {
    sessionCache.append(CachedSession(user: "user-\(index)"))
}
announceReady("\(sessionCache.count)")
runForever()
