// The session server with a heap profile endpoint: the same server as `session-server`, linked
// with RetainGraph's HeapProfiles, serving `/debug/pprof/heap` when asked to.
//
//   swift run session-server-profiled --refresh task-loop-leaking --heap-profile on --port 8080
//   go tool pprof -top http://localhost:8080/debug/pprof/heap
//
// A second executable rather than a package trait: `session-server` must link no RetainGraph
// product (it is the server "built without the census" that other tools attach to), and both
// can be built at once, so their throughput can be compared run for run. Linking HeapProfiles
// interposes malloc and free; with `--heap-profile off` (the default) that costs one indirect
// jump per call and nothing is sampled or served.
import Foundation
import HeapProfiles
import Hummingbird
import SessionServer

let option: HeapProfileOption
let configuration: SessionServerConfiguration
do {
    let environment = ProcessInfo.processInfo.environment
    let parsed = try HeapProfileOption.parse(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
    option = parsed.option
    configuration = try SessionServerConfiguration(arguments: parsed.rest, environment: environment)
} catch {
    FileHandle.standardError.write(Data("session-server-profiled: \(error)\n".utf8))
    exit(2)
}

let server = SessionServer(configuration: configuration)
let router = server.makeRouter()
if let interval = option.meanInterval {
    let endpoint = HeapProfileEndpoint()
    guard endpoint.enableSampling(meanInterval: interval) else {
        FileHandle.standardError.write(
            Data("session-server-profiled: heap sampling is unavailable here\n".utf8))
        exit(1)
    }
    router.get(RouterPath(endpoint.path)) { _, _ -> Response in
        let answer = endpoint.respond()
        var headers = HTTPFields()
        for (name, value) in answer.headers {
            if let field = HTTPFields.Element.Name(name) { headers[field] = value }
        }
        return Response(
            status: .init(code: answer.status), headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
let app = Application(
    router: router,
    configuration: .init(
        address: .hostname(configuration.host, port: configuration.port),
        serverName: "SessionServer"),
    onServerRunning: { channel in
        let port = channel.localAddress?.port.map(String.init) ?? "?"
        let profile = option.meanInterval.map { ", heap profile every \($0) bytes" } ?? ""
        print(
            "session-server-profiled: http://\(configuration.host):\(port), "
                + "refresh \(configuration.refresh)\(profile)")
        fflush(nil)  // stdout is a pipe under a test or a supervisor
    })
try await app.runService()
