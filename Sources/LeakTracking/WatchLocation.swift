/// Where in the source an object was said to be expected dead: the call to
/// ``LeakWatcher/expectDeallocation(of:within:reason:label:fileID:filePath:line:column:)``.
///
/// The test helpers record a leak's failure here, so an IDE or a CI annotation points at the
/// line that made the watch, not at the test's declaration.
///
/// ```swift
/// let id = watcher.expectDeallocation(of: owner, reason: "closed")
/// print(watcher.verdict(for: id)?.location ?? "")   // MyAppTests/ScreenTests.swift:12:17
/// ```
public struct WatchLocation: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The file's `#fileID`: its module and name, such as `MyAppTests/ScreenTests.swift`.
    public let fileID: String
    /// The file's full path (`#filePath`).
    public let filePath: String
    /// The line, from 1.
    public let line: Int
    /// The column, from 1.
    public let column: Int

    /// Creates a location; the defaults are the caller's.
    ///
    /// - Parameters:
    ///   - fileID: The file's `#fileID`.
    ///   - filePath: The file's full path.
    ///   - line: The line.
    ///   - column: The column.
    public init(
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        column: Int = #column
    ) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }

    /// `fileID:line:column`, as compilers print locations.
    public var description: String { "\(fileID):\(line):\(column)" }
}
