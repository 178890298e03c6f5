import RuntimeLayouts

/// How many live objects of each type the census knows, and where they are: a census without
/// the references, for comparing counts (``HeapCensus/counts()``).
///
/// Much cheaper than a ``HeapSnapshot``: one read of each object's metadata word, no layout
/// walk, no reference resolution, no global-variable scan.
public struct HeapCounts: Sendable {
    /// Every counted object's address, in no particular order.
    let addresses: [UInt]
    /// Each object's type (an index into `typeNames`).
    let types: [Int32]
    let typeNames: [String]
    let typeMetadata: [UInt]

    /// The number of live objects counted.
    public var objectCount: Int { addresses.count }

    /// Live object counts by type name, largest first (types that share a name count
    /// together), as ``HeapSnapshot/countsByType()`` gives them.
    ///
    /// - Complexity: O(*n*).
    public func countsByType() -> [(typeName: String, count: Int)] {
        TypeCounting.countsByName(types: types, typeNames: typeNames)
    }

    /// The addresses of the objects whose type name is `typeName`.
    ///
    /// - Complexity: O(*n*).
    public func addresses(ofType typeName: String) -> Set<UInt> {
        let wanted = TypeCounting.types(named: typeName, in: typeNames)
        var found = Set<UInt>()
        for index in types.indices where wanted.contains(types[index]) {
            found.insert(addresses[index])
        }
        return found
    }

    /// The class whose instances have the type name `typeName`, if it is a class.
    public func instanceClass(named typeName: String) -> AnyClass? {
        TypeCounting.instanceClass(
            named: typeName, typeNames: typeNames, typeMetadata: typeMetadata)
    }
}

extension HeapCensus {
    /// Counts the live objects the census knows, by type, without reading their references.
    ///
    /// - Returns: The counts.
    /// - Complexity: O(*n*) for *n* live objects: one load per object under its stripe's lock.
    public static func counts() -> HeapCounts {
        CensusDoor.internally {
            var addresses: [UInt] = []
            var words: [UInt] = []
            addresses.reserveCapacity(CensusDoor.count + 1024)
            words.reserveCapacity(CensusDoor.count + 1024)
            for stripe in 0..<CensusDoor.stripeCount {
                CensusDoor.visitStripe(stripe) { entries in
                    for entry in entries {
                        let address = entry & ~CensusDoor.flagMask
                        let isa = CensusDoor.load(address)
                        guard isa != 0 else { continue }
                        addresses.append(address)
                        // Tasks and blocks are counted under a name of their own.
                        if entry & CensusDoor.taskFlag != 0 {
                            words.append(1)
                        } else if entry & CensusDoor.blockFlag != 0 {
                            words.append(2)
                        } else {
                            words.append(isa)
                        }
                    }
                }
            }
            // Types met for the first time, compiled outside the locks (compiling a layout calls
            // the runtime); then every object's type from a table small enough to stay in cache.
            var known = LayoutRegistry.shared.snapshot().metadataIndex
            var unknown = Set<UInt>()
            var lastUnknown: UInt = 0
            for word in words where word > 2 && word != lastUnknown && known.index(of: word) == nil
            {
                unknown.insert(word)
                lastUnknown = word
            }
            for word in unknown { _ = MetadataCheck.layoutIndex(ofMetadata: word) }
            let registry = LayoutRegistry.shared.snapshot()
            if !unknown.isEmpty { known = registry.metadataIndex }
            var typeNames = registry.layouts.map(\.typeName)
            var typeMetadata = registry.layouts.map(\.metadata)
            let task = Int32(typeNames.count)
            typeNames.append("Task")
            typeMetadata.append(0)
            let block = Int32(typeNames.count)
            typeNames.append("block")
            typeMetadata.append(0)
            var keptAddresses: [UInt] = []
            var types: [Int32] = []
            keptAddresses.reserveCapacity(addresses.count)
            types.reserveCapacity(addresses.count)
            for (address, word) in zip(addresses, words) {
                let type: Int32?
                switch word {
                case 1: type = task
                case 2: type = block
                default: type = known.index(of: word)
                }
                guard let type else { continue }  // not (or no longer) an object
                keptAddresses.append(address)
                types.append(type)
            }
            return HeapCounts(
                addresses: keptAddresses, types: types, typeNames: typeNames,
                typeMetadata: typeMetadata)
        }
    }
}

/// Counting objects by type name, for ``HeapCounts`` and ``HeapSnapshot``.
enum TypeCounting {
    /// Counts by name (types that share a name count together), largest first, then by name.
    static func countsByName(types: [Int32], typeNames: [String]) -> [(
        typeName: String, count: Int
    )] {
        var perType = [Int](repeating: 0, count: typeNames.count)
        for type in types { perType[Int(type)] += 1 }
        var byName: [String: Int] = [:]
        for (type, count) in perType.enumerated() where count > 0 {
            byName[typeNames[type], default: 0] += count
        }
        return byName.map { ($0.key, $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.typeName < $1.typeName }
    }

    /// The indices of the types named `typeName` (types can share a name).
    static func types(named typeName: String, in typeNames: [String]) -> Set<Int32> {
        Set(typeNames.indices.filter { typeNames[$0] == typeName }.map { Int32($0) })
    }

    /// The class of the first type named `typeName` that has metadata, if it is a class.
    static func instanceClass(named typeName: String, typeNames: [String], typeMetadata: [UInt])
        -> AnyClass?
    {
        guard
            let index = typeNames.indices.first(where: {
                typeNames[$0] == typeName && typeMetadata[$0] != 0
            }),
            let metadata = UnsafeRawPointer(bitPattern: typeMetadata[index]),
            RuntimeKind.isClass(metadata)
        else { return nil }
        return unsafeBitCast(metadata, to: AnyClass.self)
    }
}
