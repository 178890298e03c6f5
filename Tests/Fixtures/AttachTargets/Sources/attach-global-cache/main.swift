// Sessions put in a global cache and never removed: the global array holds them all. Each line
// `add N` on standard input caches N more and answers `added TOTAL`.
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

@MainActor func cache(_ count: Int) {
    for _ in 0..<count {
        sessionCache.append(CachedSession(user: "user-\(sessionCache.count)"))
    }
}

cache(firstArgument(or: 20))
announceReady("\(sessionCache.count)")
while let line = readLine() {
    if line.hasPrefix("add "), let count = Int(line.dropFirst(4)) {
        cache(count)
        say("added \(sessionCache.count)")
    }
}
runForever()
