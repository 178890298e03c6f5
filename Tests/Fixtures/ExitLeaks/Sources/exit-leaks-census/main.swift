// A program that links the heap census (HeapCensus) and leaks a session: run as a test process
// (copied to a name ending in .xctest) with the preloaded check, the process holds two copies of
// the census and the preloaded one sees no allocation.
import ExitLeaksKit
import HeapCensus

@inline(never)
func leakASession() {
    let session = Client.openSession(for: "census")
    print("opened a session for \(session.user)")
}

let recording = HeapCensus.start()
leakASession()
print("census recording: \(recording)")
