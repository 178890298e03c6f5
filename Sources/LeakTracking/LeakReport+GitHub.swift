import Foundation

extension LeakReport {
    /// The report as a GitHub Actions workflow command, so that a pull request shows the leak as
    /// an annotation on the line of the user's code that made it.
    ///
    /// The command is `::error` for a leak or a zombie and `::warning` for a transient. It
    /// always carries `file` and `line` when the report knows any location: those of the first
    /// creation-trace frame in the user's code (see ``userSourceLocation(workspace:)``), else
    /// those of the watch (``watchLocation``, the `expectDeallocation` or `trackForLeaks`
    /// call). The message is the summary, the hint and the fingerprint, one per line. Data and
    /// properties are escaped as GitHub's toolkit does: `%`, CR and LF everywhere, and `:` and
    /// `,` in properties too.
    ///
    /// ```swift
    /// for report in comparison.new {
    ///     print(report.githubAnnotation(workspace: "/home/runner/work/app/app"))
    /// }
    /// // ::error file=Sources/App/Poller.swift,line=42,title=LEAK%3A App.Poller (strong target)::…
    /// ```
    ///
    /// - Parameter workspace: The repository's root (`GITHUB_WORKSPACE`); file paths in the
    ///   command are relative to it, as GitHub expects.
    /// - Returns: One line, without a trailing newline.
    /// - Complexity: O(*f*) for the frames of the creation traces, plus the summary's cost.
    public func githubAnnotation(workspace: String) -> String {
        let command = verdict == .transient ? "warning" : "error"
        var properties: [(String, String)] = []
        if let location = annotationLocation(workspace: workspace) {
            properties += [("file", location.file), ("line", String(location.line))]
        }
        properties.append(
            ("title", "\(verdict.rawValue): \(subject.typeName) (\(hint.code.shortDescription))"))
        let message = [summary, "Hint: \(hint.text)", "Fingerprint: \(fingerprint)"]
            .joined(separator: "\n")
        let list = properties.map { "\($0.0)=\(GitHubCommand.escape($0.1, isProperty: true))" }
            .joined(separator: ",")
        return "::\(command) \(list)::\(GitHubCommand.escape(message))"
    }

    /// Where an annotation points: the first creation frame in the user's code, else the
    /// watch's location (relative to `workspace` when inside it, as written otherwise), else
    /// the first creation trace's own line as written (an at-exit report's "made at", read
    /// with a workspace that does not hold it).
    ///
    /// - Parameter workspace: The repository's root.
    /// - Returns: The file and the 1-based line; `nil` only for a report with none of them.
    public func annotationLocation(workspace: String) -> (file: String, line: Int)? {
        if let location = userSourceLocation(workspace: workspace) { return location }
        if let watch = watchLocation, watch.line > 0, !watch.filePath.isEmpty {
            return (
                GitHubCommand.relative(watch.filePath, to: workspace) ?? watch.filePath, watch.line
            )
        }
        for trace in creationTraces {
            if let file = trace.file, !file.isEmpty, !GitHubCommand.isDependency(file),
                let line = trace.line, line > 0
            {
                return (file, line)
            }
        }
        return nil
    }

    /// The first creation-trace frame in the user's code: a file inside `workspace` (relative to
    /// it) and outside SwiftPM's `.build/` and any package's `checkouts/`, with its line.
    ///
    /// The traces are tried in the order that points nearest the fix: the suspect reference's
    /// holder (the timer, task or session that keeps the object), then the leaked object, then
    /// the others. A trace's ``CreationTrace/file`` and ``CreationTrace/line`` are used first;
    /// frames are then read from their text (`function + 12 at /path/File.swift:42 (image)`),
    /// so reports written by any version of the library work.
    ///
    /// - Parameter workspace: The repository's root.
    /// - Returns: The file, relative to `workspace`, and the 1-based line; `nil` when no frame
    ///   of any creation trace is in the user's code.
    public func userSourceLocation(workspace: String) -> (file: String, line: Int)? {
        let first = (path + (cycle ?? [])).filter(\.isSuspect).map(\.from) + [subject.id]
        let rank = Dictionary(first.enumerated().map { ($1, $0) }, uniquingKeysWith: min)
        let traces = creationTraces.enumerated().sorted {
            (rank[$0.element.object] ?? first.count, $0.offset)
                < (rank[$1.element.object] ?? first.count, $1.offset)
        }.map(\.element)
        for trace in traces {
            var candidates: [(String, Int)] = []
            if let file = trace.file, let line = trace.line, line > 0 {
                candidates.append((file, line))
            }
            candidates += trace.frames.compactMap(GitHubCommand.fileAndLine(of:))
            for (file, line) in candidates {
                guard let relative = GitHubCommand.relative(file, to: workspace),
                    !GitHubCommand.isDependency(relative)
                else { continue }
                return (relative, line)
            }
        }
        return nil
    }
}

/// GitHub Actions workflow-command escaping, as `@actions/core`'s `command.ts` does it.
enum GitHubCommand {
    /// Escapes a command's message (`%`, CR and LF) or, for a property's value, also `:` and
    /// `,`.
    static func escape(_ text: String, isProperty: Bool = false) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": result += "%25"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            case ":" where isProperty: result += "%3A"
            case "," where isProperty: result += "%2C"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether a path lies in SwiftPM's `.build/` or in a package's `checkouts/`: built or
    /// another package's code, never the user's.
    static func isDependency(_ path: String) -> Bool {
        path.split(separator: "/").contains { $0 == ".build" || $0 == "checkouts" }
    }

    /// `file` relative to `workspace`, or nil when it lies outside.
    static func relative(_ file: String, to workspace: String) -> String? {
        let root = workspace.hasSuffix("/") ? workspace : workspace + "/"
        guard file.hasPrefix(root) else { return nil }
        return String(file.dropFirst(root.count))
    }

    /// The file and line of a frame's text, `… at /path/File.swift:42 (image)`.
    static func fileAndLine(of frame: String) -> (String, Int)? {
        var text = Substring(frame)
        // The image, in parentheses at the end.
        if text.hasSuffix(")"), let open = text.range(of: " (", options: .backwards) {
            text = text[..<open.lowerBound]
        }
        guard let colon = text.lastIndex(of: ":"),
            let line = Int(text[text.index(after: colon)...]), line > 0,
            let at = text[..<colon].range(of: " at ", options: .backwards)
        else { return nil }
        let file = String(text[at.upperBound..<colon])
        return file.isEmpty ? nil : (file, line)
    }
}
