import Foundation
import Testing

@Suite("Package.swift says what the code does")
struct ManifestTests {
    @Test("Every target declares exactly the package modules it imports")
    func dependenciesMatchImports() throws {
        let manifest = try Repository.manifest()
        let targets = manifest.targets
        #expect(targets.count > 10)
        let executables = Set(targets.filter { $0.type == "executable" }.map(\.name))
        // Modules a target can import from this package or its dependencies' products.
        let known = Set(targets.map(\.name)).union(targets.flatMap(\.dependencies))
        var problems: [String] = []
        for target in targets where target.type != "system-target" {
            let imported = try Repository.imports(under: target.path).intersection(known)
                .subtracting([target.name])
            let declared = Set(target.dependencies)
            let undeclared = imported.subtracting(declared).sorted()
            // An executable is a build-order dependency (a test runs the built program).
            let unused = declared.subtracting(imported).subtracting(executables).sorted()
            if !undeclared.isEmpty {
                problems.append("\(target.name) imports but does not declare \(undeclared)")
            }
            if !unused.isEmpty {
                problems.append("\(target.name) declares but does not import \(unused)")
            }
        }
        #expect(problems == [])
    }

    @Test("LeakTracking depends on neither TrackedTimers nor ReferenceReflection")
    func leakTrackingDependencies() throws {
        let leakTracking = try #require(
            try Repository.manifest().targets.first { $0.name == "LeakTracking" })
        #expect(!leakTracking.dependencies.contains("TrackedTimers"))
        #expect(!leakTracking.dependencies.contains("ReferenceReflection"))
    }
}
