import RuntimeLayouts

/// How many live objects of each type the census knows, and where they are: a census without
/// the references, for comparing counts (``HeapCensus/counts()``).
///
/// Much cheaper than a ``/HeapGraph/HeapSnapshot``: one read of each object's metadata word, no layout
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
    /// together), as ``/HeapGraph/HeapSnapshot/countsByType()`` gives them.
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
            var read = CountingBuffer(capacity: CensusDoor.count + 1024)
            defer { read.free() }
            for stripe in 0..<CensusDoor.stripeCount {
                // Nothing is allocated under the stripe's lock: a stripe that does not fit is
                // read again once the buffer has grown.
                while true {
                    let start = read.count
                    var needed = 0
                    CensusDoor.visitStripe(stripe) { entries in
                        needed = read.append(entries)
                    }
                    guard needed > 0 else { break }
                    read.count = start
                    read.grow(to: start + needed)
                }
            }
            return read.counts()
        }
    }
}

/// The addresses and metadata words ``HeapCensus/counts()`` reads, in buffers allocated before
/// any lock is taken, appended with plain stores (no generic call: this runs in debug builds).
private struct CountingBuffer {
    var addresses: UnsafeMutablePointer<UInt>
    /// Each object's metadata word, or 1 for a task and 2 for a block.
    var words: UnsafeMutablePointer<UInt>
    var capacity: Int
    var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        addresses = .allocate(capacity: capacity)
        words = .allocate(capacity: capacity)
    }

    func free() {
        addresses.deallocate()
        words.deallocate()
    }

    mutating func grow(to needed: Int) {
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let newAddresses = UnsafeMutablePointer<UInt>.allocate(capacity: newCapacity)
        let newWords = UnsafeMutablePointer<UInt>.allocate(capacity: newCapacity)
        newAddresses.update(from: addresses, count: count)
        newWords.update(from: words, count: count)
        free()
        addresses = newAddresses
        words = newWords
        capacity = newCapacity
    }

    /// Appends a stripe's initialised entries; returns 0, or the room the stripe needs when it
    /// does not fit (nothing appended then counts: the caller resets `count`).
    mutating func append(_ entries: UnsafeBufferPointer<UInt>) -> Int {
        guard let base = entries.baseAddress else { return 0 }
        let total = entries.count
        guard count + total <= capacity else { return total }
        let mask = ~CensusDoor.flagMask
        var position = 0
        while position < total {
            let entry = base[position]
            position += 1
            let address = entry & mask
            let isa = CensusDoor.load(address)
            guard isa != 0 else { continue }
            addresses[count] = address
            // Tasks and blocks are counted under a name of their own.
            if entry & CensusDoor.taskFlag != 0 {
                words[count] = 1
            } else if entry & CensusDoor.blockFlag != 0 {
                words[count] = 2
            } else {
                words[count] = isa
            }
            count += 1
        }
        return 0
    }

    /// Every object's type, from the layouts (compiling those of types met for the first time,
    /// no lock held: compiling calls the runtime), then a table small enough to stay in cache.
    func counts() -> HeapCounts {
        var known = LayoutRegistry.shared.snapshot().metadataIndex
        var unknown = Set<UInt>()
        var lastUnknown: UInt = 0
        var index = 0
        while index < count {
            let word = words[index]
            index += 1
            if word > 2, word != lastUnknown, known.rawIndex(of: word) < 0 {
                unknown.insert(word)
                lastUnknown = word
            }
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
        var kept = 0
        let keptAddresses = [UInt](unsafeUninitializedCapacity: count) { keptBuffer, keptCount in
            guard let keptBase = keptBuffer.baseAddress else { return }
            var index = 0
            while index < count {
                let word = words[index]
                let type: Int32
                switch word {
                case 1: type = task
                case 2: type = block
                default: type = known.rawIndex(of: word)
                }
                // Not (or no longer) an object: left out. Types go to `words`, reused.
                if type >= 0 {
                    keptBase[kept] = addresses[index]
                    words[kept] = UInt(bitPattern: Int(type))
                    kept += 1
                }
                index += 1
            }
            keptCount = kept
        }
        let types = [Int32](unsafeUninitializedCapacity: kept) { typeBuffer, typeCount in
            guard let typeBase = typeBuffer.baseAddress else { return }
            var index = 0
            while index < kept {
                typeBase[index] = Int32(truncatingIfNeeded: Int(bitPattern: words[index]))
                index += 1
            }
            typeCount = kept
        }
        return HeapCounts(
            addresses: keptAddresses, types: types, typeNames: typeNames,
            typeMetadata: typeMetadata)
    }
}

/// Counting objects by type name, for ``HeapCounts`` and ``/HeapGraph/HeapSnapshot``.
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
