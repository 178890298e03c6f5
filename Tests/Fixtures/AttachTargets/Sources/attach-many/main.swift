// N small objects in a linked list that a global holds (`attach-many 1000000` for the
// benchmarks): a large heap with one holder.
import FixtureSupport

final class Node {
    let value: Int
    let next: Node?

    init(value: Int, next: Node?) {
        self.value = value
        self.next = next
    }
}

/// Holds the list's head (the nodes are unlinked iteratively: a recursive deinit of a million
/// nodes would overflow the stack).
final class NodeList {
    var head: Node?
}

let list = NodeList()
for index in 0..<firstArgument(or: 100_000) {
    list.head = Node(value: index, next: list.head)
}
announceReady()
runForever()
