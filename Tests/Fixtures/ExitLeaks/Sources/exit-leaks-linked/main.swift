// A program that links the at-exit check (SuiteLeaks) and leaks a session: run as a test
// process (copied to a name ending in .xctest) with the preloaded check too, the linked check
// reads the heap and the preloaded one steps aside.
import ExitLeaksKit
import SuiteLeaks

@inline(never)
func leakASession() {
    let session = Client.openSession(for: "linked")  // LINKED-SESSION-LINE
    print("opened a session for \(session.user)")
}

leakASession()
print("at-exit check linked: \(ExitCheck.platformLeaks.count) platform patterns")
