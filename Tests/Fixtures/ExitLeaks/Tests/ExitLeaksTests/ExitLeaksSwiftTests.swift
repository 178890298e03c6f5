import Testing

/// Run by Swift Testing (a process of its own): leaves the scenarios behind and passes.
@Test func leavesAScenarioBehind() async {
    await leaveScenariosBehind()
    #expect(startedPollers == 1)
}
