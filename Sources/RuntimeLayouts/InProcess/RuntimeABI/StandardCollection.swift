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
