/// The return addresses of one thread's stack, captured cheaply and symbolicated later.
///
/// PLACEHOLDER SHAPE: the stack-trace work replaces this file's implementation.
public struct StackTrace: Sendable, Hashable {
    /// The default number of frames a capture keeps.
    public static let defaultDepth = 32
    /// The largest depth a capture honours; larger requests are clamped to it.
    public static let maximumDepth = 256

    /// Return addresses, innermost call first.
    public let addresses: [UInt]

    /// Creates a trace from raw return addresses, innermost first.
    public init(addresses: [UInt]) { self.addresses = addresses }

    /// Captures the calling thread's stack.
    public static func capture(depth: Int = defaultDepth, skipping: Int = 0) -> StackTrace {
        StackTrace(addresses: [])
    }
}
