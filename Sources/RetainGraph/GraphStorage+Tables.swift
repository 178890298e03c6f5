/// The live graph's interned values: node types, node kinds and reference roles, each stored
/// once per graph and named by a number in the node and reference columns.
///
/// Tables only grow: a type, kind or role stays known after its last node or reference goes.
/// They hold what a program's code names (types, root kinds, property names), not one entry
/// per object.
struct GraphTables {
    /// A node's type: a metatype (named lazily, at snapshot time) or a name given up front.
    enum TypeEntry {
        case metatype(Any.Type)
        case name(String)
    }

    var types: [TypeEntry] = []
    private var typeNumbers: [ObjectIdentifier: UInt32] = [:]
    private var typeNameNumbers: [String: UInt32] = [:]
    private var lastType: (key: ObjectIdentifier, number: UInt32)?

    /// Kinds by number; the first four are the kinds without payload, in ``CompactGraph``'s
    /// order, so that a kind number below 4 is its compact kind's raw value.
    private(set) var kinds: [NodeKind] = [.object, .timer, .proxy, .closure]
    private var rootKindNumbers: [RootKind: UInt32] = [:]

    /// Roles by number (number 0 is the compact graph's empty role, which no reference has).
    var roles = InternedRoles()

    /// The number of kind `.object`.
    static let objectKind: UInt32 = 0

    mutating func typeNumber(of type: Any.Type) -> UInt32 {
        let key = ObjectIdentifier(type)
        if let lastType, lastType.key == key { return lastType.number }
        let number: UInt32
        if let known = typeNumbers[key] {
            number = known
        } else {
            number = UInt32(types.count)
            types.append(.metatype(type))
            typeNumbers[key] = number
        }
        lastType = (key, number)
        return number
    }

    mutating func typeNumber(named name: String) -> UInt32 {
        if let known = typeNameNumbers[name] { return known }
        let number = UInt32(types.count)
        types.append(.name(name))
        typeNameNumbers[name] = number
        return number
    }

    mutating func kindNumber(of kind: NodeKind) -> UInt32 {
        switch kind {
        case .object: return 0
        case .timer: return 1
        case .proxy: return 2
        case .closure: return 3
        case .root(let root):
            if let known = rootKindNumbers[root] { return known }
            let number = UInt32(kinds.count)
            kinds.append(kind)
            rootKindNumbers[root] = number
            return number
        }
    }

    /// The name of type `number`, as a snapshot prints it.
    func typeName(_ number: UInt32) -> String {
        switch types[Int(number)] {
        case .metatype(let type): return TypeNameCache.name(of: type)
        case .name(let name): return name
        }
    }
}
