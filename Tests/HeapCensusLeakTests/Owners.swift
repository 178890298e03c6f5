import Dispatch
import Foundation

// Owners written the way apps write them: each starts a primitive of the platform and never
// stops it (the leaking variant) or captures itself weakly / stops it (the fixed variant).
// Nothing here uses a RetainGraph type.

final class TimerOwner: @unchecked Sendable {
    var timer: Timer?
    func start(weakly: Bool) {
        timer =
            weakly
            ? Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { [weak self] _ in
                self?.tick()
            }
            : Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { _ in self.tick() }
    }
    func tick() {}
}

final class DispatchOwner: @unchecked Sendable {
    var source: DispatchSourceTimer?
    func start(weakly: Bool) {
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "owner.refresh"))
        source.schedule(deadline: .now() + 3600, repeating: 3600)
        if weakly {
            source.setEventHandler { [weak self] in self?.tick() }
        } else {
            source.setEventHandler { self.tick() }
        }
        source.activate()
        self.source = source
    }
    func stop() { source?.cancel() }
    func tick() {}
}

final class TaskOwner: @unchecked Sendable {
    var task: Task<Void, Never>?
    func start() {
        task = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
                self.tick()
            }
        }
    }
    func stop() { task?.cancel() }
    func tick() {}
}

final class ObserverOwner: @unchecked Sendable {
    var observer: NSObjectProtocol?
    func start(weakly: Bool) {
        observer = NotificationCenter.default.addObserver(
            forName: Notification.Name("census.refresh"), object: nil, queue: nil
        ) { [weak self] _ in
            if weakly { self?.tick() }
        }
        if !weakly {
            observer = NotificationCenter.default.addObserver(
                forName: Notification.Name("census.refresh"), object: nil, queue: nil
            ) { _ in self.tick() }
        }
    }
    func stop() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }
    func tick() {}
}

final class Entry: @unchecked Sendable {}

/// A global cache, as apps keep them.
nonisolated(unsafe) var entryCache: [Entry] = []

/// A singleton with a dictionary of callbacks.
final class Callbacks: @unchecked Sendable {
    static let shared = Callbacks()
    var byName: [String: () -> Void] = [:]
}

final class WorkItemOwner: @unchecked Sendable {
    var item: DispatchWorkItem?
    func start(on queue: DispatchQueue, weakly: Bool = false) {
        let item =
            weakly
            ? DispatchWorkItem { [weak self] in self?.tick() } : DispatchWorkItem { self.tick() }
        queue.asyncAfter(deadline: .now() + 3600, execute: item)
        self.item = item
    }
    func stop() { item?.cancel() }
    func tick() {}
}
