// The one place the layout compiler learns about types. Two sources answer it: the runtime of
// this process (RuntimeMetadata, over the runtime's metadata and reflection entry points) and
// libswiftRemoteMirror over another process's memory (ProcessAttach's MirrorMetadata), as
// Swift's own RemoteInspection reads its own process and a remote one through one reader.
//
// The questions are the ones both can answer: what kind of value a type is and how it is laid
// out (a `TypeShape`, in the terms of RemoteInspection's `TypeInfo`), a class's stored
// properties, a closure context's captures, a box's value, a standard collection's storage, and,
// per value, an enum's case and an existential's contents. Everything built from the answers
// (roles, paths, slots, element regions, what is read conservatively) is the compiler's, once.

import ObjectGraph

/// A type as a metadata source knows it: the metadata's address in the process that made it
/// (this process's runtime), or a remote mirror's type reference. Only the source that gave it
/// can interpret it; `0` is never a type.
package struct TypeHandle: Hashable, Sendable {
    package var raw: UInt64

    package init(_ raw: UInt64) { self.raw = raw }
}

/// What kind of value a type is, as far as references go.
package enum ValueKind: Equatable, Sendable {
    /// One strong reference at the value's start: a class instance, a class-bound existential,
    /// `any Error` (its box), `Builtin.NativeObject`.
    case strongReference
    /// A `weak` reference: a side table's address, whose first word is the object.
    case weakReference
    /// An `unowned` (safe) reference.
    case unownedReference
    /// An `unowned(unsafe)` reference or `Unmanaged`.
    case unmanagedReference
    /// A closure: a function pointer, then its context at +8 (a strong reference).
    case thickFunction
    /// A struct or tuple: its ``TypeShape/children`` at their offsets.
    case aggregate
    /// An enum whose empty cases live in its payload's spare bits (an `Optional` of a
    /// reference, a one-payload enum): it reads like its payload (``TypeShape/children``).
    case singlePayloadEnum
    /// An enum whose references depend on its case: decoded per value.
    case multiPayloadEnum
    /// An existential whose dynamic type is only known per value (`Any`, `any P`).
    case opaqueExistential
    /// A standard collection (`Array`, `Set`, `Dictionary`…): one word, its storage object.
    case standardCollection
    /// A `String` (or a `Character`, which is one): two words, the second naming its storage
    /// object when the string is large and native (``StringObject``).
    case string
    /// A type laid out like another (Synchronization's `_Cell<Value>` inside a `Mutex`):
    /// ``TypeShape/children`` holds that type at offset 0.
    case rawLayout
    /// A value that holds no reference the reader follows: numbers, metatypes, thin functions,
    /// raw pointers, empty enums, the standard library's other values.
    case plain
}

/// How a value of a type is laid out, as far as references go.
package struct TypeShape: Sendable {
    /// What kind of value it is.
    package var kind: ValueKind
    /// Its size, alignment and stride in bytes.
    package var size: Int
    package var alignment: Int
    package var stride: Int
    /// An aggregate's stored properties or elements, a single-payload enum's payload case, a
    /// raw layout's value: each at its offset, named as a path component (`""` when the path
    /// goes through it without naming it).
    package var children: [TypeChild] = []
    /// Whether the type is `Optional`: its case is not part of a path (`action`, not
    /// `action.some`).
    package var isOptional = false

    package init(kind: ValueKind, size: Int, alignment: Int = 8, stride: Int? = nil) {
        self.kind = kind
        self.size = size
        self.alignment = max(alignment, 1)
        self.stride = max(stride ?? size, 1)
    }
}

/// A stored property, element, capture or case payload inside a value or object.
package struct TypeChild: Sendable {
    /// Its name as a path component.
    package var name: String
    /// Its offset from the start of what holds it.
    package var offset: Int
    /// Its type, when the source can name it. A child without one is read conservatively up to
    /// the next child (a field whose type the compiler hid and the source could not find).
    package var type: TypeHandle?
    /// How the child holds a reference when the source knows it without its type: the
    /// reference storage a declaration wraps the type in (`weak`, `unowned`,
    /// `unowned(unsafe)`), or a strong reference or closure a reader saw as such; nil for a
    /// value described by its ``type``.
    package var storage: ValueKind?

    package init(name: String, offset: Int, type: TypeHandle?, storage: ValueKind? = nil) {
        self.name = name
        self.offset = offset
        self.type = type
        self.storage = storage
    }
}

/// A closure context's captures, or a box's value, as a source decodes them.
package struct ContextCaptures: Sendable {
    /// One capture.
    package enum Content: Sendable {
        /// A value of a type (weak and unowned captures carry their storage kind).
        case value(TypeHandle, storage: ValueKind?)
        /// The box of a captured `var`.
        case box
        /// A closure (its context at +8).
        case thickFunction
        /// A function pointer with no context.
        case thinFunction
    }

    package struct Capture: Sendable {
        package var offset: Int
        package var content: Content
        /// The name a capture is shown under (`Owner`, `var`, `closure`).
        package var name: String

        package init(offset: Int, content: Content, name: String) {
            self.offset = offset
            self.content = content
            self.name = name
        }
    }

    package var captures: [Capture] = []
    /// Where the first capture would be: what is read conservatively when nothing is decoded.
    package var firstCaptureOffset = 16
    /// Why decoding stopped before the last capture, if it did: the rest is read
    /// conservatively from the end of the last decoded capture.
    package var problem: String?
    /// Whether the layout depends on the instance (generic bindings read from it): such a
    /// layout is compiled without an instance as conservative reads.
    package var dependsOnInstance = false
    /// The end of the last decoded capture.
    package var decodedEnd: Int?
    /// The qualified names of the capture types the context's capture descriptor lists, read
    /// even when the captures cannot be decoded; empty for a generic context (its types depend
    /// on its bindings) or when the source cannot name them.
    package var typeNames: [String] = []

    package init() {}
}

/// A standard collection's storage class, as a source recognises it.
package struct CollectionStorage: Sendable {
    package enum Kind: Sendable { case array, dictionary, set }
    package var kind: Kind
    /// The element type (array, set), or the key and value types (dictionary).
    package var arguments: [TypeHandle]
    /// Hashed storage: the offsets of `_scale`, and `_rawKeys`/`_rawValues` or `_rawElements`.
    package var scaleOffset = 0
    package var baseOffsets: [Int] = []
    /// The instance size: where hashed storage's bitmap starts.
    package var instanceSize = 0

    package init(kind: Kind, arguments: [TypeHandle]) {
        self.kind = kind
        self.arguments = arguments
    }
}

/// Where a metadata source reads a process's types: this process's runtime, or a remote mirror
/// over a stopped process's copy or a core file.
///
/// Every answer may be nil: a type without reflection metadata, a mirror that cannot lower a
/// type, a word that is not metadata. The compiler then reads what it cannot describe
/// conservatively and says so in the layout's problem.
package protocol MetadataSource: AnyObject {
    /// What kind of heap object an object whose first word is `metadata` is, checked without
    /// faulting; nil when the word is not heap-object metadata of a loaded image.
    func objectKind(ofMetadata metadata: UInt) -> HeapObjectKind?

    /// The type of a class's metadata.
    func classType(ofMetadata metadata: UInt) -> TypeHandle?

    /// The superclass of the class `metadata`, if it has a Swift one.
    func superclass(ofClassMetadata metadata: UInt) -> UInt?

    /// A type's name, qualified and readable (`App.Owner`, `Swift.Array<App.Entry>`).
    func name(of type: TypeHandle) -> String?

    /// How a value of the type is laid out.
    func shape(of type: TypeHandle) -> TypeShape?

    /// The stored properties of an instance of the class `metadata`, superclasses' included,
    /// by offset; nil when the class has no field metadata at all. `problem` says what could
    /// not be typed (fields read conservatively up to the next one).
    func classFields(ofMetadata metadata: UInt) -> (fields: [TypeChild], problem: String?)?

    /// The instance size of the class `metadata`.
    func instanceSize(ofClassMetadata metadata: UInt) -> Int?

    /// The storage of a standard collection, if the class `metadata` is one.
    func collectionStorage(ofClassMetadata metadata: UInt) -> CollectionStorage?

    /// The captures of a closure context of `metadata`; `sample` is one such object (its
    /// address in the reader's memory), from which generic bindings can be read.
    func captures(ofContextMetadata metadata: UInt, sample: UInt?) -> ContextCaptures

    /// The type a box of `metadata` holds, and where the value starts.
    func boxedValue(ofBoxMetadata metadata: UInt) -> (type: TypeHandle?, offset: Int)

    /// The case of the enum value of `type` whose bytes are `copy` (read from `address`), with
    /// its payload's type (nil for a case without payload), its name, and whether the payload
    /// is indirect (a box). `copy` may be modified (projected).
    func enumCase(of type: TypeHandle, copy: UnsafeMutableRawPointer, address: UInt)
        -> (name: String, payload: TypeHandle?, isIndirect: Bool)?

    /// The dynamic type of the existential of `type` whose bytes are `copy` (read from
    /// `address`), and whether the value is boxed (its first word a box holding it).
    func existentialContents(of type: TypeHandle, copy: UnsafeRawPointer, address: UInt)
        -> (type: TypeHandle, isBoxed: Bool)?

    /// The name of an existential's container type, such as `Any` or `any Sendable`.
    func containerName(of type: TypeHandle) -> String
}
