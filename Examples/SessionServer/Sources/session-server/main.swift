// Runs the session server until SIGINT or SIGTERM.
//
//   swift run session-server --refresh task-loop-leaking --port 8080
//   curl -X POST localhost:8080/sessions -d '{"user":"ada"}'   # {"id":"s1",…,"user":"ada"}
//   curl -X DELETE localhost:8080/sessions/s1
//   curl localhost:8080/sessions                               # {"alive":1,"created":1,"open":0}
import Foundation
import Hummingbird
import SessionServer

let configuration: SessionServerConfiguration
do {
    configuration = try SessionServerConfiguration(
        arguments: Array(CommandLine.arguments.dropFirst()),
        environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("session-server: \(error)\n".utf8))
    exit(2)
}

let server = SessionServer(configuration: configuration)
let app = server.makeApplication(onServerRunning: { channel in
    let port = channel.localAddress?.port.map(String.init) ?? "?"
    print("session-server: http://\(configuration.host):\(port), refresh \(configuration.refresh)")
})
try await app.runService()
