import Dispatch
import Foundation
import HeapCensus
import LeakTracking
import ReferenceReflection
import Testing

/// Each hint gives the fix that works for its holder, on the pattern a service writes (the
/// owners of Owners.swift and ServiceOwners.swift), watched as the test helpers watch
/// (reflection plus the census): the leaking variant gets the right hint and one suspect, the
/// fixed variant (the hint followed) dies.
@Suite(.serialized) struct PlatformHintTests {
    init() { HeapCensus.start() }

    /// Watches what `make` returns (no local variable of the caller keeps it) and checks it.
    private func report(_ make: () -> AnyObject) throws -> LeakReport {
        let watcher = LeakWatcher(defaultGrace: .zero, discovery: .reflection)
        watch(make, with: watcher)
        let verdict = try #require(watcher.check().first)
        #expect(verdict.verdict == .leak)
        return try #require(verdict.report)
    }

    /// Watches what `make` returns and waits for it to die (what was stopped lets go on its own
    /// thread, or task: the wait suspends, so the task can run).
    private func dies(_ make: () -> AnyObject) async -> Bool {
        // A generous grace: the watch is judged as soon as the object dies, or when it ends.
        let watcher = LeakWatcher(defaultGrace: .seconds(20), discovery: .reflection)
        watch(make, with: watcher)
        let verdicts = await watcher.settled(timeout: .seconds(30))
        return verdicts.first?.verdict == .ok
    }

    @inline(never)
    private func watch(_ make: () -> AnyObject, with watcher: LeakWatcher) {
        watcher.expectDeallocation(of: make(), reason: "owner closed")
    }

    /// The suspects of a path or cycle, as `Holder ⇒ role`.
    private func suspects(_ references: [ReportReference]?, in report: LeakReport) -> [String] {
        (references ?? []).filter(\.isSuspect).map {
            "\(report.object($0.from)?.shortName ?? "?") ⇒ \($0.description)"
        }
    }

    @Test func aURLSessionDelegateIsFixedByInvalidatingTheSession() async throws {
        var clients: [APIClient] = []
        defer { for item in clients { item.stop() } }
        let report = try report {
            let client = APIClient()
            client.start()
            clients.append(client)
            return client
        }
        #expect(report.hint.code == .urlSessionDelegate, "\(report.text)")
        #expect(report.hint.text.contains("invalidateAndCancel()"))
        #expect(report.hint.text.contains("finishTasksAndInvalidate()"))
        #expect(!report.hint.text.contains("make it weak"))
        #expect(suspects(report.cycle, in: report) == ["URLSession ⇒ .delegate"])
        #expect(
            await dies {
                let client = APIClient()
                client.start()
                client.stop()
                return client
            })
    }

    @Test func aFoundationTimerOnABackgroundRunLoopIsFixedByCapturingWeakly() async throws {
        var refreshers: [BackgroundRefresher] = []
        defer { for item in refreshers { item.stop() } }
        let report = try report {
            let refresher = BackgroundRefresher()
            refresher.start(weakly: false)
            refreshers.append(refresher)
            return refresher
        }
        #expect(report.hint.code == .foundationTimer, "\(report.text)")
        #expect(report.hint.text.contains("capture [weak self]"))
        #expect(report.hint.text.contains("invalidate() alone"))
        #expect(suspects(report.path, in: report).count == 1)
        #expect(
            await dies {
                let refresher = BackgroundRefresher()
                refresher.start(weakly: true)
                refresher.stop()
                return refresher
            })
    }

    @Test func aTaskWaitingOnAContinuationIsFixedByResumingIt() async throws {
        var leaking = await Self.waiter(resumed: false)
        weak let waiting = leaking.last
        defer { waiting?.stop() }
        let report = try report { leaking.removeLast() }
        #expect(report.hint.code == .continuationNeverResumed, "\(report.text)")
        #expect(report.hint.text.contains("resume the continuation in stop()"))
        #expect(report.hint.text.contains("cancelling the task does not end the wait"))
        #expect(suspects(report.path, in: report).count == 1)
        var fixed = await Self.waiter(resumed: true)
        #expect(await dies { fixed.removeLast() })
    }

    /// A waiter whose task waits on its continuation, resumed (the fix) or not; in an array,
    /// so that no local variable of the test keeps it.
    @inline(never)
    private static func waiter(resumed: Bool) async -> [ContinuationWaiter] {
        let waiter = ContinuationWaiter()
        waiter.start()
        await waiter.untilWaiting()
        if resumed {
            waiter.stop()
            await waiter.task?.value
        }
        return [waiter]
    }

    @Test func aNotificationObserverIsFixedByRemovingItsToken() async throws {
        var tokens: [NSObjectProtocol] = []
        defer { tokens.forEach(NotificationCenter.default.removeObserver) }
        let report = try report {
            let owner = ObserverOwner()
            owner.start(weakly: false)
            tokens += owner.observer.map { [$0] } ?? []
            return owner
        }
        #expect(report.hint.code == .notificationObserverCapture, "\(report.text)")
        #expect(report.hint.text.contains("removeObserver(token)"))
        // Six references read from the heap: one note for all of them, no note twice.
        let heapNotes = report.notes.filter { $0.contains("read from the heap by the census") }
        #expect(heapNotes.count == 1, "\(report.notes)")
        #expect(heapNotes.first?.hasPrefix("6 references marked (found in the heap)") == true)
        #expect(Set(report.notes).count == report.notes.count)
        #expect(suspects(report.path, in: report) == ["closure context ⇒ captures ObserverOwner"])
        #expect(
            await dies {
                let owner = ObserverOwner()
                owner.start(weakly: false)
                owner.stop()
                return owner
            })
    }

    @Test func aDispatchSourceIsFixedByCancellingIt() async throws {
        var sources: [DispatchSourceTimer] = []
        defer { for item in sources { item.cancel() } }
        let report = try report {
            let owner = DispatchOwner()
            owner.start(weakly: false)
            sources += owner.source.map { [$0] } ?? []
            return owner
        }
        #expect(report.hint.code == .dispatchBlockCapture, "\(report.text)")
        #expect(report.hint.text.contains("cancel() the source in stop()"))
        #expect(report.hint.text.contains("[weak self]"))
        #expect(suspects(report.path, in: report) == ["block ⇒ captures DispatchOwner"])
        #expect(
            await dies {
                let owner = DispatchOwner()
                owner.start(weakly: false)
                owner.stop()
                return owner
            })
    }

    @Test func aDispatchWorkItemIsFixedByCapturingWeakly() async throws {
        var owners: [WorkItemOwner] = []
        defer { for item in owners { item.stop() } }
        let queue = DispatchQueue(label: "hints.work")
        let report = try report {
            let owner = WorkItemOwner()
            owner.start(on: queue)
            owners.append(owner)
            return owner
        }
        #expect(report.hint.code == .dispatchBlockCapture, "\(report.text)")
        #expect(report.hint.text.contains("capture [weak self] in the work item's block"))
        #expect(report.hint.text.contains("cancel() does not release"))
        #expect(suspects(report.path, in: report) == ["block ⇒ captures WorkItemOwner"])
        #expect(
            await dies {
                let owner = WorkItemOwner()
                owner.start(on: queue, weakly: true)
                owner.stop()
                owner.item = nil
                return owner
            })
    }

    @Test func aGlobalCacheIsFixedByRemovingTheEntry() async throws {
        defer { hintCache.removeAll() }
        let report = try report {
            let entry = HintEntry()
            hintCache.append(entry)
            return entry
        }
        #expect(report.hint.code == .globalVariable, "\(report.text)")
        #expect(report.hint.text.contains("remove the entry when HintEntry is done"))
        #expect(report.hint.text.contains("bound the cache"))
        #expect(suspects(report.path, in: report) == ["array storage ⇒ element of an array"])
        #expect(
            await dies {
                let entry = HintEntry()
                hintCache.append(entry)
                hintCache.removeAll { $0 === entry }
                return entry
            })
    }

    @Test func aStrongDelegateIsFixedByMakingItWeak() async throws {
        let report = try report {
            let parent = Parent()
            parent.start(weakly: false)
            return parent
        }
        #expect(report.hint.code == .generic, "\(report.text)")
        #expect(report.hint.text.contains("Child ⇒ .delegate ⇒ Parent: make it weak"))
        #expect(suspects(report.cycle, in: report) == ["Child ⇒ .delegate"])
        #expect(
            await dies {
                let parent = Parent()
                parent.start(weakly: true)
                return parent
            })
    }
}
