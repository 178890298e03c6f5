import Foundation

/// Closures stored in properties, capturing their owner in every way.
final class ClosureHolder {
    var action: (() -> Void)?
    var handlers: [() -> Void] = []
    var count = 0

    func captureStrongSelf() { action = { self.count += 1 } }
    func captureWeakSelf() { action = { [weak self] in self?.count += 1 } }
    func captureUnownedSelf() { action = { [unowned self] in self.count += 1 } }
    func captureMethod() { action = tick }
    func tick() { count += 1 }

    /// A captured `var` lives in a box the closure holds.
    func captureVarBox(_ leaf: Leaf) {
        var current = leaf
        action = {
            current = Leaf("replacement")
            _ = current
        }
    }

    /// Several captures: self strongly, a leaf weakly, a string, a var box.
    func captureSeveral(_ leaf: Leaf) {
        let text = "count \(count)"
        var local = 0
        action = { [weak leaf] in
            local += 1
            print(self.count, leaf as Any, text, local)
        }
    }

    /// A closure stored generically (in an array) is wrapped in a reabstraction thunk.
    func storeInArray(_ leaf: Leaf) { handlers = [{ _ = leaf }] }

    /// A closure capturing another closure.
    func captureClosure(_ leaf: Leaf) {
        let inner: () -> Void = { _ = leaf }
        let text = "x\(count)"
        action = {
            inner()
            _ = text
        }
    }

    /// A generic closure whose capture has a type that depends on its generic parameter.
    func captureGeneric<T>(_ values: [T], _ leaf: Leaf) {
        action = {
            _ = values
            _ = leaf
        }
    }

    /// A generic closure capturing a bare generic value (its metadata is a binding).
    func captureGenericValue<T>(_ value: T, _ leaf: Leaf) {
        action = {
            _ = value
            _ = leaf
        }
    }
}

/// An actor's stored properties are read like a class's.
actor LeafActor {
    var leaf: Leaf
    weak var observer: Leaf?
    init(leaf: Leaf, observer: Leaf) {
        self.leaf = leaf
        self.observer = observer
    }
}

/// An owner of a plain Foundation `Timer` whose block captures the owner.
///
/// A Foundation timer on Linux is never freed (it retains itself through its CF context), so
/// owners made by these tests stay alive for the process; they are small.
final class TimerOwner: @unchecked Sendable {
    var timer: Timer?
    var ticks = 0

    func startCapturingSelfStrongly() {
        timer = Timer(timeInterval: 3600, repeats: true) { _ in self.ticks += 1 }
    }

    func startCapturingSelfWeakly() {
        timer = Timer(timeInterval: 3600, repeats: true) { [weak self] _ in self?.ticks += 1 }
    }
}
