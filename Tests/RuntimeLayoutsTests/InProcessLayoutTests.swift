import ObjectGraph
import RuntimeLayouts
import Synchronization
import Testing

/// What the one layout compiler makes of this process's types, read through its runtime: the
/// slots, roles and ownerships every heap reader then executes.
@Suite("Layouts compiled from this process's runtime")
struct InProcessLayoutTests {
    final class Owner {}

    final class Holder {
        var strong: Owner? = Owner()
        weak var weakOwner: Owner?
        unowned var unownedOwner: Owner
        unowned(unsafe) var unsafeOwner: Owner
        var handler: (() -> Void)?
        var state = State(timer: Owner(), count: 3)
        var name = "not a reference"

        struct State {
            var timer: Owner
            var count: Int
        }

        init(_ owner: Owner) {
            unownedOwner = owner
            unsafeOwner = owner
        }
    }

    /// The compiled layout of `object`'s class.
    private func layout(of object: AnyObject) throws -> CompiledLayout {
        let isa = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            .load(as: UInt.self)
        return try #require(LayoutRegistry.shared.layout(ofMetadata: isa))
    }

    /// Each slot's role and ownership, by the role's description.
    private func slots(_ layout: CompiledLayout) -> [String: Ownership] {
        Dictionary(
            layout.slots.map {
                (LayoutRegistry.shared.role($0.role).description, $0.ownership)
            }, uniquingKeysWith: { first, _ in first })
    }

    @Test("A class's stored properties keep their ownership and their path")
    func storedPropertiesKeepOwnershipAndPath() throws {
        let holder = Holder(Owner())
        let compiled = try layout(of: holder)
        let found = slots(compiled)
        #expect(compiled.kind == .instance)
        #expect(compiled.typeName.hasSuffix("InProcessLayoutTests.Holder"))
        #expect(found[".strong"] == .strong)
        #expect(found[".weakOwner"] == .weak)
        #expect(found[".unownedOwner"] == .unowned)
        #expect(found[".unsafeOwner"] == .unownedUnsafe)
        #expect(found[".state.timer"] == .strong)
        #expect(found[".name"] == .strong, "a String: its storage, when it has one")
        #expect(
            compiled.slots.contains {
                $0.isStringObject && LayoutRegistry.shared.role($0.role).description == ".name"
            })
        #expect(compiled.slots.contains { $0.isFunctionContext }, "the closure's context")
    }

    final class ClosureHolder {
        var handler: () -> Void = {}
    }

    @Test("A Mutex's value is read typed, through the cell that holds it")
    func mutexValuesAreReadTyped() throws {
        let guarded = GuardedOwners()
        guarded.owners.withLock { $0.append(GuardedOwner()) }
        let found = slots(try layout(of: guarded))
        #expect(found[".owners.value"] == .strong, "\(found)")
    }

    @Test("A closure context names what it captures")
    func closureContextsNameTheirCaptures() throws {
        let owner = Owner()
        var counter = 0
        let holder = ClosureHolder()
        holder.handler = {
            counter += 1
            _ = owner
        }
        holder.handler()
        // The handler's context: the word after its function pointer, at the one
        // function-context slot of the holder's layout.
        let slot = try #require(try layout(of: holder).slots.first { $0.isFunctionContext })
        let base = UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque())
        let context = try #require(
            UnsafeRawPointer(bitPattern: base.load(fromByteOffset: slot.offset, as: UInt.self))
                .map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() })
        let compiled = try layout(of: context)
        #expect(compiled.kind == .closureContext)
        #expect(compiled.captures.sorted() == ["Owner", "var"])
        #expect(compiled.typeName.hasPrefix("closure context (captures "))
        #expect(slots(compiled)["captures Owner"] == .strong)
    }

    @Test("Array, dictionary and set storage read their elements")
    func collectionStorageHasElementRegions() throws {
        let array = [Owner(), Owner()]
        let dictionary = ["a": Owner()]
        let set: Set<ObjectIdentifier> = [ObjectIdentifier(array[0])]
        let arrayLayout = try layout(of: unsafeBitCast(array, to: AnyObject.self))
        #expect(arrayLayout.kind == .collectionStorage)
        #expect(arrayLayout.regions.count == 1)
        let dictionaryLayout = try layout(of: unsafeBitCast(dictionary, to: AnyObject.self))
        #expect(dictionaryLayout.typeName == "[String: Owner] storage")
        #expect(dictionaryLayout.regions.count == 2, "the keys' strings and the values")
        let setLayout = try layout(of: unsafeBitCast(set, to: AnyObject.self))
        #expect(setLayout.typeName == "Set<ObjectIdentifier> storage")
        #expect(setLayout.regions.isEmpty, "identifiers hold no reference")
    }

    @Test("A large native String is read as a reference to its storage; a small one as none")
    func stringsAreReadToTheirStorage() {
        let large = String(repeating: "session-key-", count: 4)
        let small = "key"
        let readWord = { (string: String) -> UInt in
            withUnsafeBytes(of: string) { $0.load(fromByteOffset: 8, as: UInt.self) }
        }
        let storage = StringObject.storage(readWord(large))
        #expect(storage != 0)
        #expect(
            LayoutRegistry.shared.layout(
                ofMetadata: UnsafeRawPointer(bitPattern: storage)?.load(as: UInt.self) ?? 0)?
                .typeName == "String storage")
        #expect(StringObject.storage(readWord(small)) == 0, "a small string is inline")
        #expect(StringObject.storage(readWord("a literal longer than fifteen bytes")) == 0)
    }

    enum Choice {
        case none
        case one(Owner)
        case two(Owner, Owner)
    }

    final class ChoiceHolder {
        var choice = Choice.two(Owner(), Owner())
    }

    @Test("An enum with payloads is decoded per value, its case in the path")
    func enumPayloadsAreDecodedByCase() throws {
        let holder = ChoiceHolder()
        let compiled = try layout(of: holder)
        let dynamic = try #require(compiled.dynamics.first)
        #expect(dynamic.shape == .enumValue)
        let base = UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque())
        let copy = UnsafeMutableRawPointer.allocate(byteCount: dynamic.size, alignment: 16)
        defer { copy.deallocate() }
        copy.copyMemory(from: base + dynamic.offset, byteCount: dynamic.size)
        var roles: [String] = []
        LayoutRegistry.shared.compiler.decode(
            dynamic, copy: copy, address: UInt(bitPattern: base + dynamic.offset)
        ) { _, slot in roles.append(slot.role.description) }
        #expect(roles == [".choice.two.0", ".choice.two.1"])
    }
}

/// Top-level classes: the compiler names a hidden `Mutex` field of a nested type's values (a
/// `Mutex<[Outer.Owner]>`) with word substitutions in its accessor's symbol that the runtime
/// does not resolve from the symbol alone; such a field is read conservatively.
final class GuardedOwner: Sendable {}

final class GuardedOwners: Sendable {
    let owners = Mutex<[GuardedOwner]>([])
}
