import RetainGraph

/// The standard-library collections whose elements the walker reads.
enum StandardCollection {
    case array, contiguousArray, arraySlice, set, dictionary

    private static let known: [UInt: StandardCollection] = {
        var known: [UInt: StandardCollection] = [:]
        func add(_ type: Any.Type, _ collection: StandardCollection) {
            if let descriptor = TypeMetadata(type).nominalDescriptor {
                known[UInt(bitPattern: descriptor.address)] = collection
            }
        }
        add([Int].self, .array)
        add(ContiguousArray<Int>.self, .contiguousArray)
        add(ArraySlice<Int>.self, .arraySlice)
        add(Set<Int>.self, .set)
        add([Int: Int].self, .dictionary)
        return known
    }()

    /// The collection a struct descriptor stands for, if it is one of the supported ones.
    init?(_ descriptor: TypeDescriptor) {
        guard let collection = Self.known[UInt(bitPattern: descriptor.address)] else { return nil }
        self = collection
    }

    private static let standardLibraryModule: UInt? = {
        TypeMetadata(String.self).nominalDescriptor?.parent.map { UInt(bitPattern: $0.address) }
    }()

    /// Whether the descriptor is declared directly in the standard library's module.
    static func isStandardLibrary(_ descriptor: TypeDescriptor) -> Bool {
        guard let module = standardLibraryModule, let parent = descriptor.parent else {
            return false
        }
        return UInt(bitPattern: parent.address) == module
    }
}

/// Reading the elements of arrays, sets and dictionaries.
extension WalkSession {
    /// Reads the elements (and dictionary keys) of a collection stored at `address`.
    ///
    /// The collection value is copied first (retaining its storage), so its elements stay
    /// valid while they are read. At most `maxCollectionElements` elements are read.
    func visitCollection(
        _ collection: StandardCollection, _ metadata: TypeMetadata, at address: UnsafeRawPointer,
        site: Site, nesting: Int
    ) {
        guard let first = metadata.valueGenericArgument(0) else { return }
        switch collection {
        case .array, .contiguousArray, .arraySlice:
            guard !RuntimeABI.valueLayout(of: first.type).isPOD else { return }
            func read<E>(_: E.Type) {
                let visit = { (buffer: UnsafeBufferPointer<E>) in
                    self.visitElements(buffer, site: site, nesting: nesting)
                }
                switch collection {
                case .array: address.load(as: [E].self).withUnsafeBufferPointer(visit)
                case .contiguousArray:
                    address.load(as: ContiguousArray<E>.self).withUnsafeBufferPointer(visit)
                default: address.load(as: ArraySlice<E>.self).withUnsafeBufferPointer(visit)
                }
            }
            read(first.type)
        case .set:
            guard !RuntimeABI.valueLayout(of: first.type).isPOD,
                let element = first.type as? any Hashable.Type
            else { return }
            func read<E: Hashable>(_: E.Type) {
                for (index, member) in address.load(as: Set<E>.self).enumerated() {
                    guard elementBudgetAllows(index, site: site) else { return }
                    withUnsafePointer(to: member) {
                        visitValue(E.self, at: $0, site: site.appending("[]"), nesting: nesting + 1)
                    }
                }
            }
            read(element)
        case .dictionary:
            guard let second = metadata.valueGenericArgument(1),
                let key = first.type as? any Hashable.Type
            else { return }
            let keysArePOD = RuntimeABI.valueLayout(of: first.type).isPOD
            let valuesArePOD = RuntimeABI.valueLayout(of: second.type).isPOD
            guard !(keysArePOD && valuesArePOD) else { return }
            func read<K: Hashable>(_: K.Type) {
                func withValues<V>(_: V.Type) {
                    for (index, entry) in address.load(as: [K: V].self).enumerated() {
                        guard elementBudgetAllows(index, site: site) else { return }
                        let name = keyName(entry.key, index: index)
                        if !keysArePOD {
                            withUnsafePointer(to: entry.key) {
                                visitValue(
                                    K.self, at: $0, site: site.appending("[key \(name)]"),
                                    nesting: nesting + 1)
                            }
                        }
                        if !valuesArePOD {
                            withUnsafePointer(to: entry.value) {
                                visitValue(
                                    V.self, at: $0, site: site.appending("[\(name)]"),
                                    nesting: nesting + 1)
                            }
                        }
                    }
                }
                withValues(second.type)
            }
            read(key)
        }
    }

    private func visitElements<E>(_ buffer: UnsafeBufferPointer<E>, site: Site, nesting: Int) {
        guard let base = buffer.baseAddress else { return }
        for index in 0..<buffer.count {
            guard elementBudgetAllows(index, site: site) else { return }
            visitValue(
                E.self, at: UnsafeRawPointer(base + index), site: site.appending("[\(index)]"),
                nesting: nesting + 1)
        }
    }

    /// Whether element `index` may still be read (element and time budgets).
    private func elementBudgetAllows(_ index: Int, site: Site) -> Bool {
        if index >= limits.maxCollectionElements {
            report(
                .limitReached, typeName: "",
                "\(site.path): only the first \(limits.maxCollectionElements) elements read")
            isTruncated = true
            return false
        }
        if index & 0xFF == 0xFF, clock.now >= deadline {
            isTruncated = true
            return false
        }
        return true
    }

    /// A stable, short name for a dictionary key: quoted strings and integers are shown,
    /// other keys by position (never by calling user `description`).
    private func keyName<K>(_ key: K, index: Int) -> String {
        if let string = key as? String, K.self == String.self {
            return "\"" + String(string.prefix(40)) + "\""
        }
        if let integer = key as? Int, K.self == Int.self { return String(integer) }
        return "#\(index)"
    }
}
