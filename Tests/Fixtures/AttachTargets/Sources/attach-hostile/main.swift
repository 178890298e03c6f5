// A hostile target (issue 32): it plants, in its own heap, the structures a corrupted or hostile
// process can show an attach, then waits to be read. Every planted structure is memory this
// program owns and never touches again (objects it redirected are leaked, never released), so
// it keeps running whatever the reader makes of them.
//
//   • fake class metadata on the heap: copies of real metadata whose superclass is the copy
//     itself (a cycle of one) or another copy (a cycle of two), and instances redirected there;
//   • fake generic class metadata (a copy of `Holder<Int>`'s) whose generic argument is fake
//     struct metadata, whose fake descriptor (and fake module) carry terminal escape sequences
//     in their names: the type name the mirror spells must arrive escaped;
//   • a fake box whose metadata names that fake struct;
//   • array storage claiming a billion elements; dictionary storage with a scale of 39 and
//     an elements pointer that wraps around the address space;
//   • blocks whose first word is a real class's metadata but too small for its instances;
//   • fake tcaches: blocks of a tcache's size whose 64 lists all claim 65,535 entries and loop;
//   • a real class's metadata copied with a field offset that points 2 GiB past its instances.
//
//   • last, a copy of `Holder<Int>`'s metadata whose argument is a fake struct whose fake
//     module's name is not UTF-8: a type libswiftRemoteMirror's demangler aborts naming.
//
// Its main thread's name holds an escape sequence too. Prints `ready PID PLANTED ARRAY BOGUS`:
// how many structures it planted, where the billion-element array storage is, and the bogus
// `Holder`'s metadata; then runs forever.
import FixtureSupport
import Foundation

final class Base {
    var parent: AnyObject?
    var tag = 0
}

final class Victim {
    var first: AnyObject?
    var second: AnyObject?
    var count = 0
}

final class Holder<T> {
    var value: T?
    var link: AnyObject?
    init(_ value: T?) { self.value = value }
}

final class Big {
    var a: AnyObject?, b: AnyObject?, c: AnyObject?, d: AnyObject?
    var e: AnyObject?, f: AnyObject?, g: AnyObject?, h: AnyObject?
}

final class Element {
    let id: Int
    init(id: Int) { self.id = id }
}

/// Memory the program owns forever (never freed): the planted structures.
func allocate(_ bytes: Int) -> UnsafeMutableRawPointer {
    let memory = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
    memory.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
    return memory
}

/// A metadata address as a word.
func address(of type: Any.Type) -> UInt { unsafeBitCast(type, to: UInt.self) }

/// A copy of class metadata `metadata` on the heap (its whole extent, negative words
/// included); returns the copy's address point.
func copyClassMetadata(_ metadata: UInt) -> UnsafeMutableRawPointer {
    let point = UnsafeRawPointer(bitPattern: metadata)!
    let size = Int(point.load(fromByteOffset: 32, as: UInt32.self))
    let before = Int(point.load(fromByteOffset: 36, as: UInt32.self))
    let copy = allocate(size)
    copy.copyMemory(from: point - before, byteCount: size)
    return copy + before
}

/// Makes `object`'s first word (its metadata) `metadata`, and leaks it: Swift never sees it
/// again.
func redirect(_ object: AnyObject, to metadata: UnsafeMutableRawPointer) -> UInt {
    let raw = Unmanaged.passRetained(object).toOpaque()
    raw.storeBytes(of: UInt(bitPattern: metadata), as: UInt.self)
    return UInt(bitPattern: raw)
}

/// Stores at `field` the 32-bit offset from `field` to `target`.
func storeRelative(_ target: UnsafeRawPointer, at field: UnsafeMutableRawPointer) {
    let distance = Int(bitPattern: target) - Int(bitPattern: field)
    field.storeBytes(of: Int32(truncatingIfNeeded: distance), as: Int32.self)
}

/// A C string on the heap.
func cString(_ text: String) -> UnsafeMutableRawPointer {
    let bytes = Array(text.utf8) + [0]
    let memory = allocate(bytes.count)
    memory.copyMemory(from: bytes, byteCount: bytes.count)
    return memory
}

var planted: [UInt] = []  // addresses only: nothing here holds a reference

// Cyclic superclass chains.
let selfCycle = copyClassMetadata(address(of: Victim.self))
selfCycle.storeBytes(of: UInt(bitPattern: selfCycle), toByteOffset: 8, as: UInt.self)
planted.append(redirect(Victim(), to: selfCycle))
let cycleA = copyClassMetadata(address(of: Victim.self))
let cycleB = copyClassMetadata(address(of: Base.self))
cycleA.storeBytes(of: UInt(bitPattern: cycleB), toByteOffset: 8, as: UInt.self)
cycleB.storeBytes(of: UInt(bitPattern: cycleA), toByteOffset: 8, as: UInt.self)
planted.append(redirect(Victim(), to: cycleA))
planted.append(redirect(Base(), to: cycleB))

// A type name with escape sequences: fake struct metadata, its fake descriptor and module.
let hostileName = "Evil\u{1B}[2J\u{1B}]52;c;aGk=\u{07}Name"
let hostileModule = "Hostile\u{1B}[31m"
let module = allocate(16)  // flags 0 (a module), parent 0, name
storeRelative(cString(hostileModule), at: module + 8)
let descriptor = allocate(32)  // a struct: flags 17, parent, name, no accessor, no fields
descriptor.storeBytes(of: UInt32(17), as: UInt32.self)
storeRelative(module, at: descriptor + 4)
storeRelative(cString(hostileName), at: descriptor + 8)
let fakeStructStorage = allocate(32)  // value witnesses (Int's), kind 0x200, descriptor
let intMetadata = UnsafeRawPointer(bitPattern: address(of: Int.self))!
fakeStructStorage.storeBytes(of: intMetadata.load(fromByteOffset: -8, as: UInt.self), as: UInt.self)
fakeStructStorage.storeBytes(of: UInt(0x200), toByteOffset: 8, as: UInt.self)
fakeStructStorage.storeBytes(of: UInt(bitPattern: descriptor), toByteOffset: 16, as: UInt.self)
let fakeStruct = fakeStructStorage + 8

// Holder<Int>'s metadata copied, its generic argument (Int) replaced by the fake struct.
let holderMetadata = copyClassMetadata(address(of: Holder<Int>.self))
do {
    let words =
        Int(UnsafeRawPointer(holderMetadata).load(fromByteOffset: 32, as: UInt32.self))
        / 8
    for index in 1..<words
    where holderMetadata.load(fromByteOffset: 8 * index, as: UInt.self) == address(of: Int.self) {
        holderMetadata.storeBytes(
            of: UInt(bitPattern: fakeStruct), toByteOffset: 8 * index, as: UInt.self)
    }
}
for _ in 0..<3 { planted.append(redirect(Holder<Int>(7), to: holderMetadata)) }

// A fake box of the fake struct.
let boxMetadata = allocate(32)
boxMetadata.storeBytes(of: UInt(0x500), as: UInt.self)
boxMetadata.storeBytes(of: UInt32(16), toByteOffset: 8, as: UInt32.self)
boxMetadata.storeBytes(of: UInt(bitPattern: fakeStruct), toByteOffset: 16, as: UInt.self)
let box = allocate(48)
box.storeBytes(of: UInt(bitPattern: boxMetadata), as: UInt.self)
box.storeBytes(of: UInt(2), toByteOffset: 8, as: UInt.self)  // a plausible reference count
planted.append(UInt(bitPattern: box))

// Array storage claiming a billion elements (count and capacity); never read again here.
var elements = (0..<4).map { Element(id: $0) }
let arrayStorage =
    UnsafeMutableRawPointer(mutating: elements.withUnsafeBufferPointer { $0.baseAddress! }) - 32
arrayStorage.storeBytes(of: 1_000_000_000, toByteOffset: 16, as: Int.self)
arrayStorage.storeBytes(of: 2_000_000_000, toByteOffset: 24, as: Int.self)

// Dictionary storage with a scale of 39; another whose keys and values pointers wrap around
// the address space (`_scale` @32, `_rawKeys` @48, `_rawValues` @56). Never read again here.
var scaled: [Int: Element] = [1: Element(id: 1), 2: Element(id: 2)]
unsafeBitCast(scaled, to: UnsafeMutableRawPointer.self)
    .storeBytes(of: Int8(39), toByteOffset: 32, as: Int8.self)
var wrapping: [Int: Element] = [3: Element(id: 3), 4: Element(id: 4)]
let wrappingStorage = unsafeBitCast(wrapping, to: UnsafeMutableRawPointer.self)
wrappingStorage.storeBytes(of: UInt.max - 15, toByteOffset: 48, as: UInt.self)
wrappingStorage.storeBytes(of: UInt.max - 15, toByteOffset: 56, as: UInt.self)

// Blocks whose first word is `Big`'s metadata, too small for a `Big`.
for _ in 0..<8 {
    let small = allocate(24)
    small.storeBytes(of: address(of: Big.self), as: UInt.self)
    small.storeBytes(of: UInt(2), toByteOffset: 8, as: UInt.self)
    planted.append(UInt(bitPattern: small))
}

// `Victim`'s metadata copied with its second field 2 GiB past the instance.
let farField = copyClassMetadata(address(of: Victim.self))
do {
    let words = Int(UnsafeRawPointer(farField).load(fromByteOffset: 32, as: UInt32.self)) / 8
    // The field offset vector holds 16, 24, 32: the first 24 found after the header.
    for index in 6..<words where farField.load(fromByteOffset: 8 * index, as: UInt.self) == 24 {
        farField.storeBytes(of: UInt(1) << 31, toByteOffset: 8 * index, as: UInt.self)
        break
    }
}
planted.append(redirect(Victim(), to: farField))

// Fake tcaches: blocks of a tcache's size (0x290-byte chunks) whose lists claim 65,535 entries
// each and loop on one chunk of the bin's size.
let tcacheCount = firstArgument(or: 2000)
var loops: [UInt] = []
for bin in 0..<64 {
    let chunk = allocate(24 + 16 * bin)
    let link = UInt(bitPattern: chunk)
    chunk.storeBytes(of: (link >> 12) ^ link, as: UInt.self)  // safe-linked to itself
    loops.append(link)
}
for _ in 0..<tcacheCount {
    let tcache = allocate(0x288)
    for bin in 0..<64 {
        tcache.storeBytes(of: UInt16.max, toByteOffset: 2 * bin, as: UInt16.self)
        tcache.storeBytes(of: loops[bin], toByteOffset: 128 + 8 * bin, as: UInt.self)
    }
}

// The main thread's name (`/proc/PID/task/PID/comm`, 15 bytes) with an escape sequence.
if let comm = FileHandle(forWritingAtPath: "/proc/self/task/\(getpid())/comm") {
    comm.write(Data("evil\u{1B}[2Jtid".utf8))
    try? comm.close()
}

// Last (so that the heap's earlier layout, which the fuzzer's corpus addresses, stays as it
// was): `Holder<Int>`'s metadata copied again, its argument a fake struct whose fake module's
// name is not UTF-8 (the first bytes of a heap address, as the fuzzer found, seed 11, input
// 13392: it wrote one over the escape-laden module name above). libswiftRemoteMirror builds a
// type reference from it whose argument's mangled name its demangler cannot parse, and naming
// it aborts the reader unless the metadata check refuses it first.
let bogusModuleName = allocate(8)
for (index, byte) in [0xA0, 0x6B, 0x57, 0x55, 0x55, 0x55, 0].enumerated() {
    bogusModuleName.storeBytes(of: UInt8(byte), toByteOffset: index, as: UInt8.self)
}
let bogusModule = allocate(16)  // a module: flags 0, no parent
storeRelative(bogusModuleName, at: bogusModule + 8)
let bogusDescriptor = allocate(32)
bogusDescriptor.storeBytes(of: UInt32(17), as: UInt32.self)
storeRelative(bogusModule, at: bogusDescriptor + 4)
storeRelative(cString("Argument"), at: bogusDescriptor + 8)
let bogusStructStorage = allocate(32)
bogusStructStorage.storeBytes(
    of: intMetadata.load(fromByteOffset: -8, as: UInt.self), as: UInt.self)
bogusStructStorage.storeBytes(of: UInt(0x200), toByteOffset: 8, as: UInt.self)
bogusStructStorage.storeBytes(
    of: UInt(bitPattern: bogusDescriptor), toByteOffset: 16, as: UInt.self)
let bogusHolder = copyClassMetadata(address(of: Holder<Int>.self))
do {
    let words = Int(UnsafeRawPointer(bogusHolder).load(fromByteOffset: 32, as: UInt32.self)) / 8
    for index in 1..<words
    where bogusHolder.load(fromByteOffset: 8 * index, as: UInt.self) == address(of: Int.self) {
        bogusHolder.storeBytes(
            of: UInt(bitPattern: bogusStructStorage + 8), toByteOffset: 8 * index, as: UInt.self)
    }
}
for _ in 0..<2 { planted.append(redirect(Holder<Int>(5), to: bogusHolder)) }

announceReady(
    "\(planted.count) \(UInt(bitPattern: arrayStorage)) \(UInt(bitPattern: bogusHolder))")
runForever()
