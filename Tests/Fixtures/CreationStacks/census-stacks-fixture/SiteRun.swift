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
        print("innermost-two=\(CreationSite(allocatingCaller: site?.allocatingCaller ?? 0, callerOfCaller: site?.callerOfCaller ?? 0).userLocation(excludingModules: ["_CreationStackLibrary"]) ?? "none")")
        for frame in site?.frames() ?? [] { print("frame \(frame)") }
        withExtendedLifetime(widget) {}
    }
}
