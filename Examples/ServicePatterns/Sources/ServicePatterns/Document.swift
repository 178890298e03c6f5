/// What a toolbar tells its owner.
public protocol ToolbarDelegate: AnyObject {
    func toolbarDidSave()
}

/// A toolbar that keeps its delegate: strongly (the bug) or weakly (the fix).
public final class Toolbar: @unchecked Sendable {
    /// The delegate, held strongly (the bug).
    public var delegate: ToolbarDelegate?
    /// The delegate, held weakly (the fix).
    public weak var weakDelegate: ToolbarDelegate?

    /// Creates a toolbar with no delegate.
    public init() {}

    func save() { (weakDelegate ?? delegate)?.toolbarDidSave() }
}

/// A document that owns its toolbar and is its delegate.
public final class Document: ToolbarDelegate, @unchecked Sendable {
    /// The document's toolbar, whose delegate it is.
    public let toolbar = Toolbar()
    private(set) var saves = 0

    /// Creates a document whose toolbar holds it as its delegate, weakly or strongly.
    public init(delegateHeldWeakly: Bool) {
        if delegateHeldWeakly {
            toolbar.weakDelegate = self
        } else {
            toolbar.delegate = self
        }
    }

    /// Counts a save.
    public func toolbarDidSave() { saves += 1 }
}
