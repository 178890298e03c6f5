import ExitLeaksKit
import Testing

/// Run by Swift Testing (a process of its own): leaves the scenarios behind and passes.
@Test func leavesAScenarioBehind() async {
    await leaveScenariosBehind()
    #expect(startedPollers == 1)
}

/// Opens two sessions of another package on two lines and closes neither: two leaks of one
/// shape, each made at its own line (three calls deep in ExitLeaksKit).
@Test func forgetsToCloseTwoSessions() {
    let first = Client.openSession(for: "first")  // FIRST-SESSION-LINE
    let second = Client.openSession(for: "second")  // SECOND-SESSION-LINE
    #expect(first.user != second.user)
}
