// The heap ExitCheckScale reads: about 40,000 live objects of the shapes a test process holds
// (a server's request state, a collection library's nodes), not one repeated class. Every kind of
// reference the census decodes is here: class fields (strong, weak, unowned), optionals of
// structs holding references, multi-case enums with payloads (indirect ones boxed), `Any` and
// `any P` existentials (inline and boxed), arrays of existentials, dictionaries of strings and
// of objects, sets, closures capturing objects; plus leaked cycles, the leaks the at-exit check
// must find, and cycles it must not report (one a global reaches, one a weak global reaches).

/// Something an existential holds.
protocol Handler: AnyObject {
    var name: String { get }
}

/// A request as a server keeps it: headers, a body, its connection, a state machine.
final class Request: Handler {
    let name: String
    var headers: [String: String]
    var body: [UInt8]
    unowned let connection: Connection
    var state: RequestState
    var attributes: [String: Any] = [:]
    var onFinish: (() -> Void)?

    init(name: String, connection: Connection) {
        self.name = name
        self.connection = connection
        headers = ["host": "localhost", "x-request": name]
        body = Array(repeating: 7, count: 16)
        state = .idle
    }
}

/// A state machine's state: a multi-case enum with payloads of every kind.
enum RequestState {
    case idle
    case reading(Buffer)
    case responding(status: Int, handler: any Handler)
    indirect case chained(RequestState, Buffer)
    case finished(Any)
}

/// Bytes in a class, as NIO's buffers are.
final class Buffer {
    var bytes: [UInt8]
    init(count: Int) { bytes = Array(repeating: 1, count: count) }
}

/// A connection: its requests, a weak back reference to its server, a delegate existential.
final class Connection {
    var requests: [Request] = []
    weak var server: Server?
    var delegate: (any Handler)?
    var pending: [Any] = []
    var metadata: Metadata?

    init(server: Server) { self.server = server }
}

/// A struct holding references, stored in an optional: a value type inline in its holder.
struct Metadata {
    var owner: Server
    var tag: String
    var extra: Buffer?
}

/// The root of the structure, held by a global.
final class Server: Handler {
    let name = "server"
    var connections: [Connection] = []
    var byName: [String: Connection] = [:]
    var seen: Set<String> = []
    var routes: [String: (Request) -> Int] = [:]
}

/// Leaked for certain: a parent and its child holding each other, reachable from nothing.
final class LeakedParent {
    var child: LeakedChild?
    var payload = Buffer(count: 64)
}

/// The other half of ``LeakedParent``'s cycle.
final class LeakedChild {
    var parent: LeakedParent?
}

/// Leaked for certain: an object whose stored closure captures it strongly.
final class LeakedCallback {
    var callback: (() -> Void)?
    var count = 0
}

/// Cycles the check must not report: one a global holds, one only a weak global reaches.
final class HeldCycle {
    var other: HeldCycle?
}

nonisolated(unsafe) var mixedServer: Server?
nonisolated(unsafe) var heldCycle: HeldCycle?
nonisolated(unsafe) weak var weaklyHeldCycle: HeldCycle?

/// Builds `connections` connections of `requestsPerConnection` requests (about 8 objects per
/// request with their storage), then `leaks` leaked cycles of each kind.
func buildMixedHeap(connections: Int, requestsPerConnection: Int, leaks: Int) {
    let server = Server()
    for index in 0..<connections {
        let connection = Connection(server: server)
        connection.delegate = server
        connection.metadata = Metadata(owner: server, tag: "c\(index)", extra: Buffer(count: 8))
        for number in 0..<requestsPerConnection {
            let request = Request(name: "r\(index)-\(number)", connection: connection)
            switch number % 5 {
            case 0: request.state = .reading(Buffer(count: 32))
            case 1: request.state = .responding(status: 200, handler: request)
            case 2: request.state = .chained(.reading(Buffer(count: 8)), Buffer(count: 8))
            case 3: request.state = .finished(number)
            default: request.state = .finished(Buffer(count: 4))
            }
            request.attributes["id"] = number
            request.attributes["buffer"] = Buffer(count: 4)
            request.onFinish = { [weak connection] in _ = connection?.requests.count }
            connection.requests.append(request)
            connection.pending.append(request)
        }
        server.connections.append(connection)
        server.byName["c\(index)"] = connection
        server.seen.insert("c\(index)")
        server.routes["/c\(index)"] = { request in request.body.count }
    }
    mixedServer = server
    makeLeaks(leaks)
}

/// Makes `count` leaked cycles of each kind, and the two cycles that are not leaks.
@inline(never)
func makeLeaks(_ count: Int) {
    for _ in 0..<count {
        let parent = LeakedParent()
        let child = LeakedChild()
        parent.child = child
        child.parent = parent
        let callback = LeakedCallback()
        callback.callback = { callback.count += 1 }
    }
    let held = HeldCycle()
    held.other = HeldCycle()
    held.other?.other = held
    heldCycle = held
    let weak = HeldCycle()
    weak.other = HeldCycle()
    weak.other?.other = weak
    weaklyHeldCycle = weak
}
