import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A sink that writes each report into a directory, one file per fingerprint and format.
///
/// Files are named `<fingerprint>.json` (and `.txt`, `.dot` when asked for). Each is written
/// to a temporary file in the same directory and then renamed over the destination
/// (`rename(2)`, atomic on one file system), so a reader such as the `retain-graph` tool never
/// sees half a report. A recurring leak rewrites its files with the new count.
///
/// ```swift
/// let sink = try DirectorySink(directory: URL(fileURLWithPath: "leaks"), formats: [.json, .text])
/// LeakWatcher.shared.addSink(sink)
/// ```
public final class DirectorySink: LeakReportSink {
    /// The files a sink can write for each report.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// ``LeakReport/jsonData()``, in `<fingerprint>.json`.
        case json
        /// ``LeakReport/text``, in `<fingerprint>.txt`.
        case text = "txt"
        /// ``LeakReport/dot``, in `<fingerprint>.dot`.
        case dot
    }

    /// The directory written to.
    public let directory: URL
    /// The formats written for each report.
    public let formats: [Format]
    private let failures = Locked<[String]>([])
    private let counter = Locked<UInt64>(0)

    /// Creates a sink, creating the directory if needed.
    ///
    /// - Parameters:
    ///   - directory: Where to write.
    ///   - formats: Which files to write for each report; JSON only by default.
    /// - Throws: A file system error if the directory cannot be created.
    public init(directory: URL, formats: [Format] = [.json]) throws {
        self.directory = directory
        self.formats = formats
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Why writes failed so far, oldest first. ``receive(_:)`` cannot throw, so it keeps them
    /// here.
    public var errors: [String] { failures.withLock { $0 } }

    /// Writes `report` into the directory; a failure is kept in ``errors``, never thrown.
    ///
    /// - Parameter report: The report.
    public func receive(_ report: LeakReport) {
        do {
            try write(report)
        } catch {
            failures.withLock { $0.append("\(report.fingerprint): \(error)") }
        }
    }

    /// Writes one report's files atomically.
    ///
    /// - Parameter report: The report.
    /// - Returns: The files written.
    /// - Throws: An encoding or file system error; the destination is then left as it was.
    @discardableResult
    public func write(_ report: LeakReport) throws -> [URL] {
        var written: [URL] = []
        for format in formats {
            let data: Data
            switch format {
            case .json: data = try report.jsonData()
            case .text: data = Data((report.text + "\n").utf8)
            case .dot: data = Data(report.dot.utf8)
            }
            let name = "\(report.fingerprint).\(format.rawValue)"
            written.append(try writeAtomically(data, named: name))
        }
        return written
    }

    private func writeAtomically(_ data: Data, named name: String) throws -> URL {
        let destination = directory.appendingPathComponent(name)
        let serial = counter.withLock { value -> UInt64 in
            value += 1
            return value
        }
        let temporary = directory.appendingPathComponent(".\(name).\(getpid()).\(serial).tmp")
        do {
            try data.write(to: temporary)
            guard rename(temporary.path, destination.path) == 0 else {
                throw CocoaError(
                    .fileWriteUnknown,
                    userInfo: [
                        NSFilePathErrorKey: destination.path,
                        NSLocalizedDescriptionKey: String(cString: strerror(errno)),
                    ])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        return destination
    }
}

extension DirectorySink {
    /// The environment variable that makes the test helpers write every report they find:
    /// `RETAINGRAPH_REPORTS=<directory>`.
    ///
    /// ```sh
    /// RETAINGRAPH_REPORTS=.build/leaks swift test
    /// retain-graph compare baseline/ .build/leaks/ --github-annotations
    /// ```
    public static let environmentVariable = "RETAINGRAPH_REPORTS"

    /// The sink of ``environmentVariable``: JSON and text files in the directory it names,
    /// made once per process; `nil` when the variable is unset or empty, or the directory
    /// cannot be created.
    ///
    /// The test helpers (`@Test(.detectsLeaks)`, `trackForLeaks`) add it to every test's
    /// watcher.
    public static let fromEnvironment: DirectorySink? = {
        guard let path = ProcessInfo.processInfo.environment[environmentVariable], !path.isEmpty
        else { return nil }
        return try? DirectorySink(directory: URL(fileURLWithPath: path), formats: [.json, .text])
    }()
}
