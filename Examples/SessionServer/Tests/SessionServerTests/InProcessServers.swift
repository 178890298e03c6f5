import Testing

/// The suites that run a ``LiveSessionServer`` inside the test process, one test at a time.
///
/// `SessionGrowthTests` counts the process's live `SessionServer.Session` objects with the heap
/// census, so no other server may make sessions in this process while it measures; the
/// lifetime and leak-watcher suites start such servers (and their leaking strategies leave
/// sessions alive on purpose). Serialized among themselves (`.serialized` is recursive), they
/// still run beside the suites whose servers are processes of their own (attach, heap
/// profiles, the executable) and the configuration tests: a plain parallel `swift test` needs
/// no `--no-parallel`.
@Suite("Servers inside the test process, one at a time", .serialized)
enum InProcessServers {}
