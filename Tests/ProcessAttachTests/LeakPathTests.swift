import ObjectGraph
import ProcessAttach
import Testing

/// Attaches to real programs that link no RetainGraph code, each leaking the way real programs
/// do, and checks that the attach names the right holder and the path to the leaked object.
@Suite("Attach names the holder and the path", .timeLimit(.minutes(10)))
struct LeakPathTests {
    /// The retention path to the only object of `typeName` in `heap`.
    private func path(to typeName: String, in heap: HeapSnapshot) throws
        -> RetentionPath
    {
        let objects = heap.objects(ofType: typeName)
        try #require(objects.count == 1, "\(typeName): \(objects.count) live objects")
        return try #require(heap.retentionPath(to: objects[0]), "no path to \(typeName)")
    }

    @Test("A Task sleep loop capturing its owner: held by the Task, through its closures")
    func taskLoop() throws {
        let target = try AttachTargets.start("attach-task-loop")
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let path = try path(to: "attach_task_loop.TaskRefresher", in: heap)
        #expect(path.holder.kind == .task)
        #expect(path.objects.first?.typeName == "Task")
        #expect(
            path.objects.map(\.typeName).contains("closure context (captures Actor, TaskRefresher)")
        )
        #expect(path.references.last?.role == .capture(name: "TaskRefresher"))
        #expect(path.references.last?.label == "captures TaskRefresher")
        #expect(path.references.last?.ownership == .strong)
        #expect(target.isRunningUntraced)
    }

    @Test("A global cache: held by the global variable, through the array's storage")
    func globalCache() throws {
        let target = try AttachTargets.start("attach-global-cache", ["20"])
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let sessions = heap.objects(ofType: "attach_global_cache.CachedSession")
        #expect(sessions.count == 20)
        let path = try #require(sessions.first.flatMap { heap.retentionPath(to: $0) })
        guard case .globalVariable(let name) = path.holder else {
            Issue.record("held by \(path.holder), not a global variable")
            return
        }
        #expect(name.hasPrefix("attach_global_cache.sessionCache : "))
        #expect(
            path.objects.map(\.typeName) == ["array storage", "attach_global_cache.CachedSession"])
        #expect(path.references.map(\.role) == [.element(collection: "an array", path: "")])
        #expect(path.references.map(\.label) == ["element of an array"])
        #expect(target.isRunningUntraced)
    }

    @Test("A Foundation.Timer whose block captures its owner: held by the timer, valid or not")
    func foundationTimer() throws {
        let target = try AttachTargets.start("attach-timer")
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let valid = try path(to: "attach_timer.TimerOwner", in: heap)
        #expect(valid.holder.kind == .scheduledTimer)
        #expect(valid.objects.map(\.typeName) == ["Foundation.Timer", "attach_timer.TimerOwner"])
        // The block's only capture is its context: the census's name for that reference.
        #expect(
            valid.references.map(\.role) == [
                .closureCapture(property: "_fire", captured: "TimerOwner")
            ])
        let stopped = try path(to: "attach_timer.StoppedTimerOwner", in: heap)
        #expect(stopped.holder.kind == .foundationTimer)
        #expect(stopped.objects.first?.typeName == "Foundation.Timer")
        #expect(target.isRunningUntraced)
    }

    @Test("An owner and its delegate holding each other: no holder, a strong cycle")
    func delegateCycle() throws {
        let target = try AttachTargets.start("attach-delegate-cycle")
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let controllers = heap.objects(ofType: "attach_delegate_cycle.DownloadController")
        try #require(controllers.count == 1)
        #expect(heap.retentionPath(to: controllers[0]) == nil)
        let cycle = try #require(heap.strongCycle(through: controllers[0]))
        #expect(
            cycle.map(\.role) == [
                .storedProperty(name: "downloader"), .storedProperty(name: "delegate"),
            ])
        #expect(
            cycle.map { heap[$0.to].typeName } == [
                "attach_delegate_cycle.Downloader", "attach_delegate_cycle.DownloadController",
            ])
        #expect(
            heap.whoHoldsText("attach_delegate_cycle.DownloadController").contains(
                "in unreachable cycles ("))
    }

    @Test("Weakly referenced objects whose side tables reuse dirty memory are all found")
    func weaklyReferencedObjects() throws {
        let target = try AttachTargets.start("attach-weak-targets", ["300"])
        let heap = try HeapSnapshot.capture(processID: target.pid)
        // A side table's counts lie @16; the word @8 is padding, here full of set bits.
        #expect(heap.objects(ofType: "attach_weak_targets.Watched").count == 300)
        let watchers = heap.objects(ofType: "attach_weak_targets.Watcher")
        #expect(watchers.count == 300)
        // Each watcher's weak reference is read through its target's side table.
        let watcher = try #require(watchers.first)
        #expect(heap.references(from: watcher).map(\.ownership) == [.weak])
        #expect(heap.references(from: watcher).map(\.role) == [.storedProperty(name: "watched")])
    }

    @Test(
        "A class with an Atomic and a Mutex: every field read typed, the Mutex's through its accessor's symbol"
    )
    func noncopyableFields() throws {
        let target = try AttachTargets.start("attach-noncopyable")
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let listeners = heap.objects(ofType: "attach_noncopyable.Listener")
        try #require(listeners.count == 2)
        let paths = listeners.compactMap { heap.retentionPath(to: $0) }
        try #require(paths.count == 2)
        for path in paths {
            guard case .globalVariable(let name) = path.holder else {
                Issue.record("held by \(path.holder)")
                continue
            }
            #expect(name.hasPrefix("attach_noncopyable.registry"))
            #expect(path.objects.first?.typeName == "attach_noncopyable.Registry")
        }
        // The primary listener through its own field, the other through the Mutex's array.
        let roles = Set(paths.map { $0.references.map(\.role) })
        #expect(
            roles == [
                [.storedProperty(name: "primary")],
                [
                    .storedProperty(name: "listeners.value"),
                    .element(collection: "an array", path: ""),
                ],
            ])
        #expect(paths.allSatisfy { $0.references.allSatisfy { $0.ownership == .strong } })
        #expect(!heap.limitations.contains { $0.hasPrefix("attach_noncopyable.Registry: ") })
    }

    @Test("Objects freed just before the attach are not reported; the kept ones all are")
    func freedObjectsExcluded() throws {
        let target = try AttachTargets.start("attach-stale", ["1000"])
        let heap = try HeapSnapshot.capture(processID: target.pid)
        // 1,000, not 1,001: the 1 KiB buffer that begins with a copy of a kept object's header
        // is not a `KeptObject` (a 24-byte class), and the snapshot says it left it out.
        #expect(heap.objects(ofType: "attach_stale.KeptObject").count == 1000)
        #expect(
            heap.limitations.contains {
                $0.hasPrefix(
                    "1 block whose first word names attach_stale.KeptObject but far larger")
            }, "\(heap.limitations)")
        // A `ManagedBuffer` subclass's object is larger than its instance size, and is one.
        #expect(heap.objects(ofType: "attach_stale.Ring").count == 1)
        #expect(heap.objects(ofType: "attach_stale.FreedObject").isEmpty)
        // glibc put the first seven freed objects in the thread's tcache and the fastbins
        // (both keep the in-use bit; the program reports the fastbins' count), the rest in its
        // bins (in-use bit cleared). The free lists are what took the first ones out.
        let fastbins = try #require(target.readyDetails.last.flatMap { Int($0) })
        #expect(heap.statistics.excludedFreeBlocks >= 7 + fastbins)
    }
}
