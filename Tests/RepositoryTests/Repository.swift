import Foundation
import Testing

/// The repository as the tests read it: its root, its manifest (as SwiftPM parses it) and its
/// files.
enum Repository {
    /// The package's root directory (this file is `Tests/RepositoryTests/Repository.swift`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The text of a file under the root.
    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// One target of the manifest.
    struct Target {
        let name: String
        let type: String
        let path: String
        /// Target and product dependencies, by name.
        let dependencies: [String]
    }

    /// The manifest's targets and library products, from `swift package dump-package` (SwiftPM's
    /// own reading of `Package.swift`), run with a scratch path of its own so that it never
    /// waits for the build running the tests.
    static func manifest() throws -> (targets: [Target], libraries: [String]) {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("retaingraph-dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let output = try run(
            "/usr/bin/env",
            [
                "swift", "package", "--package-path", root.path, "--scratch-path", scratch.path,
                "dump-package",
            ])
        let json = try #require(
            try JSONSerialization.jsonObject(with: output) as? [String: Any])
        let targets = (json["targets"] as? [[String: Any]] ?? []).map { target in
            let name = target["name"] as? String ?? ""
            let type = target["type"] as? String ?? ""
            let folder = type == "test" ? "Tests" : "Sources"
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap {
                dependency -> String? in
                for key in ["byName", "target", "product"] {
                    if let fields = dependency[key] as? [Any], let name = fields.first as? String {
                        return name
                    }
                }
                return nil
            }
            return Target(
                name: name, type: type, path: target["path"] as? String ?? "\(folder)/\(name)",
                dependencies: dependencies)
        }
        let libraries = (json["products"] as? [[String: Any]] ?? []).compactMap {
            product -> String? in
            guard let type = product["type"] as? [String: Any], type["library"] != nil else {
                return nil
            }
            return product["name"] as? String
        }
        return (targets, libraries)
    }

    /// Runs a program and returns its standard output; fails the test if it fails.
    static func run(_ program: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(arguments.joined(separator: " ")) failed")
        return data
    }

    /// The modules the Swift files under `path` import (every form: `@testable`, access
    /// levels, `@_spi`, `import struct M.T`).
    static func imports(under path: String) throws -> Set<String> {
        let directory = root.appendingPathComponent(path)
        guard let files = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        let pattern = try Regex(
            #"^\s*(?:@\w+(?:\([^)]*\))?\s+|(?:public|package|internal|private|fileprivate)\s+)*import\s+(?:(?:class|struct|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)"#
        )
        var modules: Set<String> = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(
                contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                if let match = try pattern.firstMatch(in: String(line)),
                    let module = match.output[1].substring
                {
                    modules.insert(String(module))
                }
            }
        }
        return modules
    }
}
