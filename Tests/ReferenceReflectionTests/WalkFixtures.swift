import Foundation

// Fixture types for the reflection walker tests: one type per shape the walker must read.

final class Leaf: Hashable, @unchecked Sendable {
    let name: String
    init(_ name: String = "leaf") { self.name = name }
    static func == (lhs: Leaf, rhs: Leaf) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

protocol Delegate: AnyObject {}
extension Leaf: Delegate {}
protocol Describing {}
extension Leaf: Describing {}

class BaseHolder {
    var inherited: Leaf?
    var baseCount = 0
}

/// Every kind of reference storage, plus inherited and trivial fields.
final class FieldZoo: BaseHolder {
    var strong: Leaf
    var optional: Leaf?
    var emptyOptional: Leaf?
    weak var weakRef: Leaf?
    weak var weakToNobody: Leaf?
    unowned var unownedRef: Leaf
    unowned(unsafe) var unsafeRef: Leaf
    var number = 42
    var text = "hello"

    init(strong: Leaf, optional: Leaf?, weak: Leaf?, unowned: Leaf, unsafe: Leaf, inherited: Leaf?)
    {
        self.strong = strong
        self.optional = optional
        self.weakRef = weak
        self.unownedRef = unowned
        self.unsafeRef = unsafe
        super.init()
        self.inherited = inherited
    }
}

final class UnownedHolder {
    unowned let target: Leaf
    init(_ target: Leaf) { self.target = target }
}

final class GenericBox<T> {
    var value: T
    init(_ value: T) { self.value = value }
}

class GenericBase<T> {
    var baseValue: T
    init(_ value: T) { baseValue = value }
}

final class GenericChild: GenericBase<Leaf> {
    var own: Leaf
    init(base: Leaf, own: Leaf) {
        self.own = own
        super.init(base)
    }
}

struct Pair {
    var first: Leaf
    weak var second: Leaf?
    var count = 0
}

indirect enum State {
    case idle
    case running(Leaf)
    case paused(reason: String, holder: Leaf)
    case nested(State)
}

/// Values: structs, enums, tuples and existentials holding references.
final class ValueHolder {
    var pair: Pair
    var state: State
    var otherState: State = .idle
    var tuple: (Int, Leaf)
    var labelled: (count: Int, leaf: Leaf)
    var any: Any
    var anyStruct: Any
    var anyObject: AnyObject
    var delegate: (any Delegate)?
    weak var weakDelegate: (any Delegate)?
    var describing: any Describing
    var error: (any Error)?
    var result: Result<Leaf, CancellationError>

    init(_ leaves: [Leaf]) {
        pair = Pair(first: leaves[0], second: leaves[1])
        state = .running(leaves[2])
        tuple = (1, leaves[3])
        labelled = (2, leaves[4])
        any = leaves[5]
        anyStruct = Pair(first: leaves[6], second: nil)
        anyObject = leaves[7]
        delegate = leaves[8]
        weakDelegate = leaves[9]
        describing = leaves[10]
        result = .success(leaves[11])
        error = CancellationError()
    }
}

final class CollectionHolder {
    var array: [Leaf]
    var dictionary: [String: Leaf]
    var intKeyed: [Int: [Leaf]]
    var set: Set<Leaf>
    var optionalArray: [Leaf]?
    var numbers = [1, 2, 3]
    var weakBoxes: [WeakBox]
    var contiguous: ContiguousArray<Leaf>

    init(_ leaves: [Leaf]) {
        array = [leaves[0], leaves[1]]
        dictionary = ["a": leaves[2]]
        intKeyed = [7: [leaves[3]]]
        set = [leaves[4]]
        optionalArray = [leaves[5]]
        weakBoxes = [WeakBox(value: leaves[6])]
        contiguous = [leaves[7]]
    }
}

struct WeakBox {
    weak var value: Leaf?
}

/// Linked objects for depth and budget tests.
final class Chain {
    var next: Chain?
    init(next: Chain?) { self.next = next }

    static func make(length: Int) -> Chain {
        var head = Chain(next: nil)
        for _ in 1..<length { head = Chain(next: head) }
        return head
    }
}

/// Holds a chain weakly, to test following weak references.
final class WeakLink {
    weak var target: Chain?
    init(_ target: Chain) { self.target = target }
}

/// Foundation value types next to one reference.
final class FoundationValues {
    var url = URL(string: "https://example.com/a")!
    var data = Data([1, 2, 3])
    var date = Date()
    var text = "text"
    var leaf: Leaf
    init(_ leaf: Leaf) { self.leaf = leaf }
}
