import HeapCensus
import _CreationStackLibrary

/// Makes a `Widget` through the library (three calls deep) and prints where the census says it
/// was made: `line=<the making line>` and `chosen=<File.swift:line>`, then every frame.
enum SiteRun {
    static func run() {
        guard HeapCensus.start() else {
            print("census unavailable")
            return
        }
        let line = #line + 1
        let widget = WidgetFactory.make()
        let site = HeapCensus.creationSite(of: widget)
        print("line=\(line)")
        print("chosen=\(site?.userLocation(excludingModules: ["_CreationStackLibrary"]) ?? "none")")
        // The two innermost frames alone, as the census kept them before stacks: both are in
        // the library, so they name no line of the caller's.
        let pair = CreationSite(
            allocatingCaller: site?.allocatingCaller ?? 0,
            callerOfCaller: site?.callerOfCaller ?? 0)
        let pairLocation = pair.userLocation(excludingModules: ["_CreationStackLibrary"])
        print("innermost-two=\(pairLocation ?? "none")")
        for frame in site?.frames() ?? [] { print("frame \(frame)") }
        withExtendedLifetime(widget) {}
    }
}
