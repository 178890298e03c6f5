/// The reference to cut, in words, with a machine-readable code.
///
/// The code names the situation (the seed scenario it comes from); the text says what to do
/// about it in the report's own terms (type and property names).
public struct LeakHint: Sendable, Hashable, Codable {
    /// The kinds of situations a report recognises.
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// A repeating timer holds its target strongly, and the target holds the timer (S1, S3,
        /// S5b).
        case strongTimerTarget
        /// A scheduled timer holds its target strongly with no cycle: the run loop alone keeps
        /// it (S4).
        case heldFromRoot
        /// A timer's closure captures the object strongly (S6b).
        case closureCapture
        /// A dispatch source's event handler captures the object strongly (S7b).
        case dispatchHandlerCapture
        /// An object keeps a closure that captures it strongly, no timer or queue involved: a
        /// cycle through a stored closure.
        case closureCycle
        /// A frame (display-link style) timer holds its target strongly (S12a).
        case frameTimerTarget
        /// The timer is scheduled on a background thread's run loop (S16).
        case backgroundRunLoop
        /// A timer that was never scheduled still holds its target (S14).
        case unscheduledTimer
        /// A named-timer registry holds a task that captures the object (S18a).
        case registryEntry
        /// A raw `Foundation.Timer` holds the object; on Linux it is never freed.
        case foundationTimer
        /// The owner died and a repeating timer that called it fires into nothing (S11b).
        case zombieTimer
        /// A one-shot timer holds the object until it fires (S2a).
        case pendingOneShot
        /// A `Task`'s closure captures the object strongly (found by the heap census).
        case taskCapture
        /// A block libdispatch keeps (a dispatch source's handler, work on a queue) captures
        /// the object strongly (found by the heap census).
        case dispatchBlockCapture
        /// A `NotificationCenter` block observer captures the object strongly (found by the
        /// heap census).
        case notificationObserverCapture
        /// A global or static variable holds the object (found by the heap census): a cache or
        /// registry that only grows.
        case globalVariable
        /// A `URLSession` holds the object as its delegate: a session keeps its delegate until
        /// it is invalidated.
        case urlSessionDelegate
        /// A `Task` waits on a `CheckedContinuation` that nobody resumes: cancelling the task
        /// does not end the wait.
        case continuationNeverResumed
        /// A `Thread`'s closure holds the object while the thread runs.
        case threadClosure
        /// The heap census found the object held from outside the Swift heap by something it
        /// cannot name (a thread's stack, C code).
        case heldFromOutside
        /// Nothing recorded in the graph explains why the object is alive.
        case unexplained
        /// A strong reference on the path; no specific advice.
        case generic

        /// A few words for tables, such as `strong target`.
        public var shortDescription: String {
            switch self {
            case .strongTimerTarget: return "strong target"
            case .heldFromRoot: return "held from a root, no cycle"
            case .closureCapture: return "closure captures self"
            case .dispatchHandlerCapture: return "dispatch handler captures self"
            case .closureCycle: return "stored closure captures self"
            case .frameTimerTarget: return "frame timer strong target"
            case .backgroundRunLoop: return "background run loop"
            case .unscheduledTimer: return "unscheduled timer holds target"
            case .registryEntry: return "registry entry"
            case .foundationTimer: return "Foundation.Timer"
            case .zombieTimer: return "timer fires into a dead target"
            case .pendingOneShot: return "one-shot timer pending"
            case .taskCapture: return "Task captures self"
            case .dispatchBlockCapture: return "dispatch block captures self"
            case .notificationObserverCapture: return "observer block captures self"
            case .globalVariable: return "global variable"
            case .urlSessionDelegate: return "URLSession delegate"
            case .continuationNeverResumed: return "continuation never resumed"
            case .threadClosure: return "thread closure captures self"
            case .heldFromOutside: return "held from outside the heap"
            case .unexplained: return "unexplained"
            case .generic: return "strong reference"
            }
        }
    }

    /// The situation.
    public var code: Code
    /// What to do, in a sentence or two.
    public var text: String

    /// Creates a hint.
    public init(code: Code, text: String) {
        self.code = code
        self.text = text
    }
}
