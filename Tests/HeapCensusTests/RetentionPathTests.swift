import Dispatch
import Foundation
import HeapCensus
import Testing

/// Who holds an object that no RetainGraph type ever saw: one test per primitive of the
/// platform, each asserting the holder the path starts from and the reference that ends it.
@Suite(.serialized) struct RetentionPathTests {
    init() { HeapCensus.start() }

    func retentionPath(toObjectAt address: UInt) -> RetentionPath? {
        let heap = HeapCensus.snapshot()
        guard let id = heap.object(at: address) else { return nil }
        return heap.retentionPath(to: id)
    }

    @Test func aGlobalCacheIsNamedByItsVariable() throws {
        let (_, address) = makeOwner(Owner.init) { ownerCache.append($0) }
        defer { ownerCache.removeAll() }
        let path = try #require(retentionPath(toObjectAt: address))
        guard case .globalVariable(let name) = path.holder else {
            Issue.record("holder is \(path.holder.description)")
            return
        }
        #expect(name.contains("ownerCache"))
        #expect(path.references.last?.label == "element of an array")
        #expect(path.target?.typeName == "HeapCensusTests.Owner")
    }

    @Test func aPlainFoundationTimerHoldsTheOwnerItsBlockCaptures() throws {
        var timer: Timer?
        let (_, address) = makeOwner(TimerOwner.init) { owner in
            owner.start()
            timer = owner.timer
        }
        defer { timer?.invalidate() }
        let path = try #require(retentionPath(toObjectAt: address))
        #expect(path.holder == .scheduledTimer)
        #expect(path.objects.first?.typeName == "Foundation.Timer")
        // The block's only capture is its context: the timer's `_fire` captures the owner.
        #expect(
            path.references.last?.role == .closureCapture(property: "_fire", captured: "TimerOwner")
        )
        #expect(path.target?.typeName == "HeapCensusTests.TimerOwner")
    }

    @Test func anInvalidatedFoundationTimerStillHoldsItsOwner() throws {
        let (_, address) = makeOwner(TimerOwner.init) { owner in
            owner.start()
            owner.timer?.invalidate()
            owner.timer = nil
        }
        let path = try #require(retentionPath(toObjectAt: address))
        #expect(path.holder == .foundationTimer)
        #expect(
            path.references.last?.role == .closureCapture(property: "_fire", captured: "TimerOwner")
        )
    }

    @Test func aTaskSleepLoopHoldsTheOwnerItCaptures() throws {
        var task: Task<Void, Never>?
        let (_, address) = makeOwner(TaskOwner.init) { owner in
            owner.start()
            task = owner.task
        }
        defer { task?.cancel() }
        let path = try #require(retentionPath(toObjectAt: address))
        #expect(path.holder == .task)
        #expect(path.objects.first?.typeName == "Task")
        #expect(path.references.last?.label == "captures TaskOwner")
        #expect(path.target?.typeName == "HeapCensusTests.TaskOwner")
    }

    /// Another task's block keeps the owner's address in bytes the runtime never wrote (malloc
    /// handed it memory a freed allocation had filled): a stale word of task memory, one step
    /// from the owner. The task whose closure captures the owner is still the holder.
    @Test func aStaleWordInAnotherTasksMemoryDoesNotOutrankTheTaskThatRunsTheClosure()
        async throws
    {
        var task: Task<Void, Never>?
        let (_, address) = makeOwner(Owner.init) { owner in
            // Never freed: the stale words this test plants stay in freed memory after it, and
            // must never name an object a later test makes at the same address. (It holds
            // nothing: a task it kept would keep its own stale words for good.)
            _ = Unmanaged.passRetained(owner)
            task = Task.detached {
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                owner.tick()
            }
        }
        defer { task?.cancel() }
        // Memory the allocator hands the next task of its size: full of the owner's address.
        let strays = StrayTasks()
        defer { strays.cancelAll() }
        let heap = try #require(
            await strays.snapshotWithStaleWord(to: address),
            "no stray task got a planted block in 20 tries")
        let owner = try #require(heap.object(at: address))
        let path = try #require(heap.retentionPath(to: owner))
        #expect(path.holder == .task, "\(path.description)")
        #expect(
            path.objects.first?.address == task.map { unsafeBitCast($0, to: UInt.self) },
            "\(path.description)")
        #expect(path.references.last?.label == "captures Owner", "\(path.description)")
    }

    /// A task's block keeps, in bytes before the closure the runtime wrote, a stale copy of
    /// another task's closure address (a freed object's, reused for that closure): the task's
    /// own closure is still the one it runs, a typed reference to what it captures. (Taking the
    /// first closure address for the task's closure made the captured object "held from
    /// outside the heap", and let a stale word of another task outrank the task.)
    @Test func aStaleCopyOfAnotherTasksClosureDoesNotHideTheClosureATaskRuns() async throws {
        let sleeper = CountedSleeper()
        let other = Task.detached {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            _ = sleeper
        }
        defer { other.cancel() }
        let before = HeapCensus.snapshot()
        let otherTask = try #require(before.object(at: unsafeBitCast(other, to: UInt.self)))
        let otherClosure = try #require(
            before.references(from: otherTask).first { $0.ownership == .strong },
            "\(before.references(from: otherTask))")
        let strays = StrayTasks()
        defer { strays.cancelAll() }
        let heap = try #require(
            await strays.snapshotWithStaleWord(to: before[otherClosure.to].address),
            "no stray task got a planted block in 20 tries")
        let (stray, captured) = try #require(strays.holding)
        let object = try #require(heap.object(at: unsafeBitCast(captured, to: UInt.self)))
        let path = try #require(heap.retentionPath(to: object))
        #expect(path.holder == .task, "\(path.description)")
        #expect(
            path.objects.first?.address == unsafeBitCast(stray, to: UInt.self),
            "\(path.description)")
        #expect(path.references.first?.role == .runs, "\(path.description)")
        #expect(path.references.first?.ownership == .strong, "\(path.description)")
        #expect(path.references.last?.label == "captures AsleepCount", "\(path.description)")
    }

    @Test func aDispatchSourceHandlerHoldsTheOwnerFromOutsideTheHeap() throws {
        var source: DispatchSourceTimer?
        let (_, address) = makeOwner(DispatchOwner.init) { owner in
            owner.start()
            source = owner.source
        }
        defer { source?.cancel() }
        let path = try #require(retentionPath(toObjectAt: address))
        #expect(path.holder == .dispatchBlock, "\(path.description)")
        #expect(path.objects.first?.typeName == "block")
        #expect(path.references.last?.role.isCapture == true)
        #expect(path.target?.typeName == "HeapCensusTests.DispatchOwner")
    }

    @Test func aClosureInASingletonsDictionaryHoldsWhatItCaptures() throws {
        let (_, address) = makeOwner(Owner.init) { owner in
            CallbackRegistry.shared.callbacks["refresh"] = { owner.tick() }
        }
        defer { CallbackRegistry.shared.callbacks.removeAll() }
        let path = try #require(retentionPath(toObjectAt: address))
        guard case .globalVariable(let name) = path.holder else {
            Issue.record("holder is \(path.holder.description)")
            return
        }
        #expect(name.contains("CallbackRegistry.shared"))
        #expect(path.references.map(\.label) == [".callbacks", "value of [String: () -> ()]"])
        #expect(path.target?.typeName == "HeapCensusTests.Owner")
    }

    @Test func aWorkItemAQueueHoldsHoldsItsOwner() throws {
        let queue = DispatchQueue(label: "census.work")
        let (_, address) = makeOwner(WorkItemOwner.init) { $0.start(on: queue) }
        let path = try #require(retentionPath(toObjectAt: address))
        #expect(path.holder == .dispatchBlock, "\(path.description)")
        #expect(path.references.last?.role.isCapture == true)
        #expect(path.target?.typeName == "HeapCensusTests.WorkItemOwner")
    }

    /// A word of a global (a C library's static, a stale value) that is a block's address read
    /// without a layout: it must neither hide libdispatch's hold nor be the path's start.
    @Test func aStrayGlobalWordDoesNotHideTheQueueThatHoldsAWorkItem() throws {
        let queue = DispatchQueue(label: "census.stray")
        let (_, address) = makeOwner(WorkItemOwner.init) { $0.start(on: queue) }
        let first = try #require(retentionPath(toObjectAt: address))
        #expect(first.holder == .dispatchBlock, "\(first.description)")
        let block = try #require(first.objects.first)
        strayGlobalWord = block.address
        defer { strayGlobalWord = 0 }
        let path = try #require(retentionPath(toObjectAt: address))
        #expect(path.holder == .dispatchBlock, "\(path.description)")
        #expect(path.objects.first?.address == block.address)
    }
}

extension RetentionPathTests {
    @Test func aNotificationObserverBlockIsHeldFromTheDefaultCenter() throws {
        var token: NSObjectProtocol?
        let (_, address) = makeOwner(Owner.init) { owner in
            token = NotificationCenter.default.addObserver(
                forName: Notification.Name("census.test"), object: nil, queue: nil
            ) { _ in owner.tick() }
        }
        defer { token.map(NotificationCenter.default.removeObserver) }
        let path = try #require(retentionPath(toObjectAt: address))
        // Foundation's private `_defaultCenter` holds the center; the center's observers sit in
        // a `Mutex` (its `registrar`), whose dictionary the census reads conservatively.
        guard case .globalVariable(let name) = path.holder else {
            Issue.record("holder is \(path.holder.description): \(path.description)")
            return
        }
        #expect(name.contains("_defaultCenter"))
        #expect(path.objects.first?.typeName == "FoundationEssentials.NotificationCenter")
        // The center's registrar is a Mutex of a private type: read word by word.
        #expect(path.references.first?.role.description == ".registrar")
        #expect(path.references.first?.label == ".registrar (conservative)")
        #expect(
            path.objects.contains {
                $0.typeName == "[UInt64: @Sendable (MessageBox) -> ()] storage"
            }
        )
        #expect(path.references.last?.role.description == "captures Owner")
        #expect(path.target?.typeName == "HeapCensusTests.Owner")
    }

    @Test func aRemovedNotificationObserverLetsItsOwnerDie() throws {
        weak var weakOwner: Owner?
        _ = makeOwner(Owner.init) { owner in
            weakOwner = owner
            let token = NotificationCenter.default.addObserver(
                forName: Notification.Name("census.test"), object: nil, queue: nil
            ) { _ in owner.tick() }
            NotificationCenter.default.removeObserver(token)
        }
        #expect(weakOwner == nil)
    }

    @Test func anOwnerInAMutexIsHeldThroughItsValue() throws {
        let holder = MutexHolder()
        let (_, address) = makeOwner(Owner.init) { owner in
            holder.owners.withLock { $0.append(owner) }
        }
        let path = try #require(retentionPath(toObjectAt: address))
        #expect(path.objects.first?.typeName == "HeapCensusTests.MutexHolder")
        #expect(path.references.map(\.label) == [".owners.value", "element of an array"])
        #expect(path.target?.typeName == "HeapCensusTests.Owner")
        withExtendedLifetime(holder) {}
    }

    @Test func aGenericClassesMutexIsReadThroughItsValue() throws {
        let holder = GenericMutexHolder<Owner>()
        let (_, address) = makeOwner(Owner.init) { owner in
            holder.items.withLock { $0.append(owner) }
        }
        let path = try #require(retentionPath(toObjectAt: address))
        #expect(
            path.objects.first?.typeName
                == "HeapCensusTests.GenericMutexHolder<HeapCensusTests.Owner>")
        #expect(path.references.map(\.label) == [".items.value", "element of an array"])
        withExtendedLifetime(holder) {}
    }

    @Test func aMutexOfAPrivateTypeIsReadConservatively() throws {
        let holder = PrivateStateHolder()
        let (_, address) = makeOwner(Owner.init) { holder.keep($0) }
        // The holder's own references, not the retention path: in a parallel run, a stale word
        // of another test's closure context (read word by word too) may name the array's
        // storage, and a path from that test's task then outranks the holder's.
        let heap = HeapCensus.snapshot()
        let owner = try #require(heap.object(at: address))
        let holderAddress = UInt(bitPattern: Unmanaged.passUnretained(holder).toOpaque())
        let holderID = try #require(heap.object(at: holderAddress))
        let state = try #require(
            heap.references(from: holderID).first { $0.role.description == ".state" })
        // A field whose type cannot be named is read word by word: a conservative reference.
        #expect(state.label == ".state (conservative)")
        #expect(state.ownership == .conservative)
        #expect(
            heap.references(from: state.to).contains {
                $0.to == owner && $0.label == "element of an array"
            })
        withExtendedLifetime(holder) {}
    }
}
