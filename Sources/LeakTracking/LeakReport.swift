import Foundation
import RetainGraph

/// Everything a person needs to fix one leak (or zombie timer): what leaked, the chain of
/// references that keeps it, the cycle it sits in, where the timers on that chain were made,
/// and which reference to cut.
///
/// A report is plain data: it is built from a graph snapshot when a verdict is reached, and
/// it round-trips through JSON (see <doc:ReportSchema>), so tools can render and compare
/// reports long after the process that found them has exited. Three renderings exist:
/// ``text`` for a terminal, ``jsonData()`` for files and CI, and ``dot`` for Graphviz.
///
/// ```swift
/// if let report = watcher.verdicts().first?.report {
///     print(report.text)
///     try report.dot.write(toFile: "leak.dot", atomically: true, encoding: .utf8)
/// }
/// ```
public struct LeakReport: Sendable, Hashable, Codable {
    /// The version of the JSON layout this type writes. Readers accept this version and older.
    ///
    /// Version 2 added ``watchLocation`` and the creation traces' `file` and `line`.
    public static let currentSchemaVersion = 2

    /// The JSON layout version the report was written with.
    public var schemaVersion: Int
    /// ``Verdict/leak``, ``Verdict/zombie`` or ``Verdict/transient``.
    public var verdict: Verdict
    /// Sixteen hexadecimal digits naming the leak by type names and reference roles only, so
    /// the same bug has the same fingerprint across runs and machines.
    public var fingerprint: String
    /// How many times this fingerprint was seen in the run (reports are deduplicated by it).
    public var occurrences: Int
    /// The object that was expected to die.
    public var subject: ReportObject
    /// Why it was expected to die, as given to ``LeakWatcher/expectDeallocation(of:within:reason:label:fileID:filePath:line:column:)``.
    public var reason: String
    /// The grace period it was given, in seconds.
    public var graceSeconds: Double
    /// How long ago the grace period ended when the report was made, in seconds.
    public var secondsPastDeadline: Double
    /// What keeps the subject alive.
    public var retention: RetentionKind
    /// Every object the report mentions, the subject included; ``ReportReference`` ends name
    /// them by ``ReportObject/id``.
    public var objects: [ReportObject]
    /// The shortest strong path from a root, root first, ending at the subject (or, for a
    /// zombie, at the timer still firing). Empty when no root reaches it.
    public var path: [ReportReference]
    /// The strong cycle through the subject (or the zombie timer), or `nil` for none.
    public var cycle: [ReportReference]?
    /// Other references between the objects above (weak back references, for instance), drawn
    /// by ``dot`` for context.
    public var context: [ReportReference]
    /// For a zombie, the ``ReportObject/id`` of the timer still firing into nothing.
    public var zombieTimer: String?
    /// For a transient retention, when the last one-shot timer holding the subject is due, in
    /// seconds since 1970.
    public var releaseDate: Double?
    /// Where each timer and proxy on the path or cycle was created.
    public var creationTraces: [CreationTrace]
    /// The reference to cut, in words.
    public var hint: LeakHint
    /// Remarks, such as raw Foundation timers or references found by inspecting memory.
    public var notes: [String]
    /// When the report was made, in seconds since 1970, read from the watcher's ``WatchClock``
    /// (so a test with a ``ManualWatchClock`` gets exact relative times). Absent in reports
    /// written before it existed.
    public var reportedAt: Double?
    /// Where the object was watched: the `expectDeallocation` (or `trackForLeaks`) call, where
    /// the test helpers record the failure; CI annotations fall back to it when no creation
    /// frame lies in the user's code. Absent in reports written before version 2.
    public var watchLocation: WatchLocation?
    /// How many bytes the leaked object keeps alive: its own size and the sizes of every object
    /// only it keeps alive (the objects it dominates in the heap's dominator tree), as Chrome
    /// DevTools' "Retained Size". Present when the check read the whole heap with real sizes
    /// (the heap census); absent otherwise, and in reports written before it existed.
    public var retainedBytes: Int?
    /// How many objects the leaked object keeps alive, itself included: the objects it
    /// dominates in the heap's dominator tree. Present when the check read the whole heap (the
    /// heap census); absent otherwise, and in reports written before it existed.
    public var retainedCount: Int?
    /// Where the objects of a group of leaked cycles were made, every site with its count (the
    /// at-exit check's reports, SuiteLeaks); absent in other reports.
    public var creationSites: [CreationSiteCount]? = nil

    /// What keeps an object alive, as written in reports.
    public enum RetentionKind: String, Sendable, Hashable, Codable {
        /// A strong path from a root and a strong cycle (seed S1).
        case rootPathAndCycle
        /// A strong path from a root and no cycle (seed S4).
        case rootPath
        /// A strong cycle that no root reaches (seed S14).
        case cycle
        /// Nothing recorded explains it.
        case unexplained
        /// The subject is dead (zombie reports).
        case deallocated
    }

    /// The object with the given report-local identity.
    ///
    /// Reports made by this library number their objects `o0`, `o1`, … in order, so the object
    /// is found at once; a report whose objects are numbered otherwise is searched.
    ///
    /// - Parameter id: An ``ReportObject/id``.
    /// - Returns: The object, or `nil` if the report does not mention it.
    /// - Complexity: O(1) for a report this library made; O(*o*) otherwise.
    public func object(_ id: String) -> ReportObject? {
        if id.hasPrefix("o"), let position = Int(id.dropFirst()),
            objects.indices.contains(position), objects[position].id == id
        {
            return objects[position]
        }
        return objects.first { $0.id == id }
    }

    /// A one-line explanation: the hint's short name and the chain of types, such as
    /// `strong target: run loop ⇒ RunLoopTimer ⇒ Owner ⇒ RunLoopTimer`.
    ///
    /// - Complexity: O(*r*) for a report this library made (O(*o*) per name shown otherwise).
    public var summary: String {
        guard verdict == .transient, let release = releaseDescription else {
            return "\(hint.code.shortDescription): \(chain)"
        }
        return "\(hint.code.shortDescription), \(release): \(chain)"
    }

    /// For a transient retention, when the one-shot timer fires, relative to when the report was
    /// made and as a date: `fires in 9.9 s (at 2026-11-23T16:00:09.900Z)`.
    ///
    /// A fire date already past when the report was made reads `was due 0.2 s ago (at …)`: the
    /// timer's run loop or queue has not run since. A report without ``reportedAt`` (written
    /// by an older version) gives the date alone: `fires at …`.
    public var releaseDescription: String? {
        guard let releaseDate else { return nil }
        return Self.describeFire(at: releaseDate, from: reportedAt)
    }

    /// `fires in 9.9 s (at …Z)`, `was due 0.2 s ago (at …Z)`, or `fires at …Z` without `now`.
    static func describeFire(at date: Double, from now: Double?) -> String {
        guard let now else { return "fires at \(isoDate(date))" }
        let delay = date - now
        if delay < 0 { return "was due \(seconds(-delay)) ago (at \(isoDate(date)))" }
        return "fires in \(seconds(delay)) (at \(isoDate(date)))"
    }

    /// The path's objects by short name, joined by `⇒` (strong) or `→` (weak), continued one
    /// step around the cycle when there is one.
    ///
    /// A chain of more than ten links is shortened in the middle, to fit on a line:
    /// `Node ⇒ Node ⇒ Node ⇒ Node ⇒ Node … 9,990 more … ⇒ Node ⇒ Node ⇒ Node ⇒ Node ⇒ Node`.
    ///
    /// - Complexity: O(*r*) for a report this library made (O(*o*) per name shown otherwise).
    public var chain: String {
        // Identities first (cheap), names only for the links shown: `object(_:)` finds each in
        // O(1) in the library's own numbering, so a 10,000-link chain costs its walk alone.
        var ids: [String] = []
        var links: [String] = []
        let references = path.isEmpty ? (cycle ?? []) : path
        for reference in references {
            if ids.isEmpty { ids.append(reference.from) }
            links.append(reference.arrow)
            ids.append(reference.to)
        }
        if !path.isEmpty, let last = path.last,
            let next = cycle?.first(where: { $0.from == last.to })
        {
            links.append(next.arrow)
            ids.append(next.to)
        }
        let deadSubject = verdict == .zombie ? ids.count : nil
        if deadSubject != nil {
            links.append("→")
            ids.append(subject.id)
        }
        guard !ids.isEmpty else { return subject.shortName }
        func name(_ position: Int) -> String {
            if position == deadSubject { return subject.shortName + " (dead)" }
            return object(ids[position])?.shortName ?? ids[position]
        }
        // Names after the first, each with the link before it; the first is always shown.
        let elision = Elision(count: links.count, limit: 10)
        var text = name(0)
        for position in elision.shownIndices {
            if elision.gapBefore(position) { text += " … \(grouped(elision.omitted)) more …" }
            text += " \(links[position]) \(name(position + 1))"
        }
        return text
    }
}
