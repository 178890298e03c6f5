import Foundation
import LeakTracking
import RetainGraph
import TrackedTimers

/// Seeds 001–002: a `CADisplayLink`-style frame timer kept in a `link` property.
///
/// ```swift
/// let screen = DisplayLinkViewController(graph: graph)
/// try screen.startDisplayLink()   // runloop ⇒ link ⇒ screen ⇒ link (S12a)
/// ```
public final class DisplayLinkViewController: @unchecked Sendable {
    let graph: LiveGraph
    /// The frame timer, held strongly (`@property (nonatomic, strong) CADisplayLink *link`).
    var link: FrameTimer?
    /// How many frames reached the controller.
    public private(set) var frames = 0

    /// Creates a controller whose timers record into `graph`.
    public init(graph: LiveGraph) { self.graph = graph }

    /// `[CADisplayLink displayLinkWithTarget:self selector:@selector(step:)]` added to the
    /// current run loop: the link holds `self` strongly (S12a).
    public func startDisplayLink() throws {
        let link = try FrameTimer(target: self, label: "display link", graph: graph) {
            controller, _ in controller.step()
        }
        try link.add(to: .current, forMode: .default)
        self.link = link
    }

    /// The same link with a closure capturing `[weak self]` (S12b).
    public func startDisplayLinkWithWeakSelf() throws {
        let link = try FrameTimer(label: "display link", graph: graph) { [weak self] _ in
            self?.step()
        }
        try link.add(to: .current, forMode: .default)
        self.link = link
    }

    /// Called once per frame.
    public func step() { frames += 1 }

    /// Invalidates the link; for clean-up.
    public func stop() { link?.invalidate() }

    deinit { link?.invalidate() }
}

/// The frame-timer seed cases (S12a, S12b).
extension Scenario {
    /// S12a: a frame timer with a strong target.
    static let s12a = Scenario(
        id: "S12a", title: "frame timer with a strong target", expected: .leak
    ) { context in
        var owner: DisplayLinkViewController? = DisplayLinkViewController(graph: context.graph)
        try owner?.startDisplayLink()
        try context.drive(until: "two frames") { (owner?.frames ?? 0) >= 2 }
        context.atCleanup(of: owner) { $0.stop() }
        context.close(&owner, reason: "DisplayLinkViewController popped")
        return try context.settle()
    }

    /// S12b: a frame timer whose closure captures `[weak self]`.
    static let s12b = Scenario(
        id: "S12b", title: "frame timer closure captures [weak self]", expected: .ok
    ) { context in
        var owner: DisplayLinkViewController? = DisplayLinkViewController(graph: context.graph)
        try owner?.startDisplayLinkWithWeakSelf()
        try context.drive(until: "two frames") { (owner?.frames ?? 0) >= 2 }
        context.close(&owner, reason: "DisplayLinkViewController popped")
        return try context.settle()
    }
}
