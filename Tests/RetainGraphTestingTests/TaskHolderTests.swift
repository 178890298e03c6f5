import HeapCensus
import HeapGraph
import ProcessAttach
import Testing

/// The API a report uses for an object "held by a Task": from the census's path to the object,
/// the task's address, and from it, where the task waits.
@Suite("Where a Task that holds an object waits", .timeLimit(.minutes(10)))
struct TaskHolderTests {
    @Test("An object a suspended task keeps: its holder names the function and line it waits at")
    func holderNamesWhereItWaits() async throws {
        let parked = ParkedContinuations()
        let payload = TaskHeldPayload()
        let payloadAddress = UInt(bitPattern: Unmanaged.passUnretained(payload).toOpaque())
        Task { [payload] in
            await parkUntilResumed(parked)
            payload.bytes[0] = 2
        }
        await parked.waitUntilParked(1)
        defer { parked.resumeAll() }
        let heap = HeapCensus.snapshot()
        let id = try #require(heap.object(at: payloadAddress))
        let path = try #require(heap.retentionPath(to: id))
        #expect(path.holder.kind == .task)
        let task = try #require(path.objects.first)
        #expect(task.typeName == "Task")
        let reader = try #require(
            TaskInspection.thisProcess(), "\(TaskInspection.thisProcessUnavailableReason ?? "")")
        let info = try #require(reader.task(at: task.address))
        #expect(info.state == .suspended, "\(info.summary)")
        #expect(info.waitingFrame?.function?.contains("parkUntilResumed") == true)
        #expect(
            info.waitingFrame?.line
                == (try line(of: "// wait: parked", in: TaskLeakTraitTests.testsFile)),
            "\(info.frames)")
        #expect(info.awaiting == "withCheckedContinuation(isolation:function:_:)")
        #expect(info.summary.contains("parkUntilResumed(_:) at LeakedTaskDetectionTests.swift:"))
        // The same through the heap: the dump of the census's heap finds the task too.
        let dump = reader.dump(of: heap)
        #expect(dump.task(at: task.address)?.waitingFrame?.line == info.waitingFrame?.line)
    }
}
