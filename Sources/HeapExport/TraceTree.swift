/// Creation traces as V8's allocation tracker writes them: a tree of call sites from the
/// outermost frame in, each tree node naming one function, plus the table of functions.
///
/// Tree node ids are 1-based (1 is the root, which stands for no frame); function 0 is the
/// root's "(root)".
struct TraceTree: Sendable {
    /// One function of `trace_function_infos`.
    struct Function: Hashable, Sendable {
        var name: UInt32
        var script: UInt32
        var line: Int
        var column: Int
    }

    /// The functions, by index.
    private(set) var functions: [Function] = []
    private var functionIndex: [Function: UInt32] = [:]
    /// Per tree node (id − 1): its parent's id (0 for the root) and its function.
    private(set) var parents: [UInt32] = []
    private(set) var nodeFunctions: [UInt32] = []
    private var children: [UInt64: UInt32] = [:]

    /// Whether any trace was recorded.
    var isEmpty: Bool { parents.isEmpty }

    /// The index of a function, adding it if new. The first function added is the root's.
    mutating func function(name: UInt32, script: UInt32, line: Int, column: Int) -> UInt32 {
        let function = Function(name: name, script: script, line: line, column: column)
        if let index = functionIndex[function] { return index }
        let index = UInt32(functions.count)
        functions.append(function)
        functionIndex[function] = index
        return index
    }

    /// The id of the tree node reached by following `path` (function indices, outermost
    /// first) from the root, adding nodes as needed.
    ///
    /// - Precondition: The root's function was added first (index 0).
    mutating func node(path: [UInt32]) -> UInt32 {
        if parents.isEmpty {
            parents.append(0)
            nodeFunctions.append(0)
        }
        var current: UInt32 = 1
        for function in path {
            let key = UInt64(current) << 32 | UInt64(function)
            if let child = children[key] {
                current = child
                continue
            }
            parents.append(current)
            nodeFunctions.append(function)
            let child = UInt32(parents.count)
            children[key] = child
            current = child
        }
        return current
    }

    /// Each node's children ids, in the order they were added (index: id − 1).
    func childLists() -> [[UInt32]] {
        var lists = [[UInt32]](repeating: [], count: parents.count)
        for index in 1..<max(parents.count, 1) {
            lists[Int(parents[index]) - 1].append(UInt32(index + 1))
        }
        return lists
    }
}
