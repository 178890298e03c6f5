import HeapGraph
import ObjectGraph

/// What a ``/HeapGraph/HeapSnapshot`` of this process's own heap can answer beyond any other:
/// its objects are this process's, so they can be named by reference, asked about while they
/// live, and traced to where they were made.
extension HeapSnapshot {
    /// The identity of `object` in this snapshot, if it is this process's census snapshot and
    /// the census saw the object allocated.
    public func id(of object: AnyObject) -> HeapObjectID? {
        guard process.isThisProcess else { return nil }
        return self.object(at: UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
    }

    /// The path from what holds `object` outside the Swift heap (or a global variable) to it.
    ///
    /// - Parameter object: A live object; it must have been allocated while the census ran.
    /// - Returns: The path, or nil when the census does not know the object or nothing found
    ///   holds it.
    public func retentionPath(to object: AnyObject) -> RetentionPath? {
        id(of: object).flatMap { retentionPath(to: $0) }
    }

    /// The object `id` stands for, retained, if this is this process's snapshot and the object
    /// is still alive and a Swift object (not a block); nil once it died or began dying.
    public func liveObject(_ id: HeapObjectID) -> AnyObject? {
        guard process.isThisProcess, contains(id), self[id].typeName != "block" else {
            return nil
        }
        return CensusDoor.object(at: self[id].address)
    }

    /// The class whose instances have the type name `typeName`, if it is a class of this
    /// process and one of its objects was read.
    public func instanceClass(named typeName: String) -> AnyClass? {
        guard process.isThisProcess, let metadata = metadata(ofTypeNamed: typeName),
            let pointer = UnsafeRawPointer(bitPattern: metadata), RuntimeKind.isClass(pointer)
        else { return nil }
        return unsafeBitCast(pointer, to: AnyClass.self)
    }

    /// The array storage object whose elements start at `elements`, if the census knows it.
    func storageID(ofElementsAt elements: UInt) -> HeapObjectID? {
        // Array storage: a 16-byte header and count/capacity words before the elements.
        object(at: elements &- 32)
    }
}

/// The metadata kind word, read without the reflection module's types.
enum RuntimeKind {
    /// Whether metadata describes a Swift class (kind 0 on Linux).
    static func isClass(_ metadata: UnsafeRawPointer) -> Bool {
        metadata.load(as: UInt.self) == 0
    }
}
