// PRIVATE SWIFT RUNTIME DETAILS: the kinds of heap objects, by the kind word of their metadata
// (Swift 6.3, no Objective-C interop): a class 0, a closure context (HeapLocalVariable) 0x400,
// a box (HeapGenericLocalVariable) 0x500, an error box 0x501, a task 0x502, a job 0x503; and a C
// block, whose first word is the blocks runtime's `_NSConcreteMallocBlock` (no Swift metadata).

import ObjectGraph

/// What a heap object is: the one vocabulary of every reader of heap objects (the census's scan,
/// a stopped process's scan, the reflection walk) and of the layouts they execute.
package enum HeapObjectKind: UInt8, Sendable, Equatable, CaseIterable {
    /// A class instance.
    case instance
    /// The storage of a standard collection (an instance of `_ContiguousArrayStorage`,
    /// `_DictionaryStorage`, `_SetStorage`).
    case collectionStorage
    /// A closure context.
    case closureContext
    /// The box of a captured `var`, or of a value held out of line.
    case box
    /// An async task.
    case task
    /// A job the concurrency runtime made.
    case job
    /// The box of an `any Error`.
    case errorBox
    /// A C block copied to the heap (how libdispatch keeps a handler or queued work).
    case block

    /// The kind of heap object whose metadata's kind word is `word`, for a Swift object; nil
    /// for any other value.
    package init?(metadataKind word: UInt) {
        switch word {
        case 0: self = .instance
        case 0x400: self = .closureContext
        case 0x500: self = .box
        case 0x501: self = .errorBox
        case 0x502: self = .task
        case 0x503: self = .job
        default: return nil
        }
    }

    /// The graph's kind for an object of this kind.
    package var nodeKind: CompactGraph.NodeKind {
        switch self {
        case .instance, .task, .job, .errorBox: return .object
        case .collectionStorage: return .storage
        case .closureContext, .block: return .closure
        case .box: return .box
        }
    }

    /// The type name of objects of this kind that have no type of their own.
    package var genericName: String {
        switch self {
        case .instance: return "object"
        case .collectionStorage: return "collection storage"
        case .closureContext: return "closure context"
        case .box: return "box"
        case .task: return "Task"
        case .job: return "job"
        case .errorBox: return "error box"
        case .block: return "block"
        }
    }
}
