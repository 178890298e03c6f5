import LeakTracking
import RetainGraphUtilities
import StackTraces

extension CreationSiteCount {
    /// The sites of a group as its report keeps them: one per type and "made at" line, with
    /// the objects made there counted and the whole stack of the most frequent of their stacks.
    ///
    /// - Parameter sites: A group's sites (``CycleGroup/sites``), most objects first.
    /// - Returns: The counts, most objects first, then by file, line and type.
    static func counts(of sites: [CycleGroup.Site]) -> [CreationSiteCount] {
        var order: [String] = []
        var counts: [String: CreationSiteCount] = [:]
        for site in sites {
            let frame = site.madeAt
            let key =
                "\(site.typeName)\u{1}\(frame?.file ?? "")\u{1}\(frame?.line ?? 0)\u{1}"
                + (frame?.function ?? "")
            if counts[key] == nil {
                order.append(key)
                // The first site of a key is its most frequent stack: `sites` is sorted so.
                counts[key] = CreationSiteCount(
                    typeName: site.typeName, count: 0, file: frame?.file,
                    line: frame?.line.flatMap { $0 > 0 ? $0 : nil }, function: frame?.function,
                    frames: site.site.frames().map(\.description))
            }
            counts[key]?.count += site.count
        }
        return order.compactMap { counts[$0] }.sorted { left, right in
            if left.count != right.count { return left.count > right.count }
            if left.file != right.file { return (left.file ?? "") < (right.file ?? "") }
            if left.line != right.line { return (left.line ?? 0) < (right.line ?? 0) }
            return left.typeName < right.typeName
        }
    }

    /// `File.swift:42`, else the function, else `?`.
    var location: String { CreationTrace.site(file: file, line: line) ?? function ?? "?" }
}

extension CycleGroup {
    /// Where the group's objects were made, one entry per line with the objects made there by
    /// type: `[("Session.swift:12", "2 Parent, 2 Child")]`, most objects first.
    var places: [(location: String, objects: String)] {
        var order: [String] = []
        var objects: [String: [(String, Int)]] = [:]
        var totals: [String: Int] = [:]
        for count in CreationSiteCount.counts(of: sites) {
            let location = count.location
            if objects[location] == nil { order.append(location) }
            objects[location, default: []].append(
                (TypeNames.withoutModule(count.typeName), count.count))
            totals[location, default: 0] += count.count
        }
        let sorted = order.enumerated().sorted { left, right in
            let (a, b) = (totals[left.element] ?? 0, totals[right.element] ?? 0)
            return a != b ? a > b : left.offset < right.offset
        }
        return sorted.map { _, location in
            let text = (objects[location] ?? []).map { "\($0.1) \($0.0)" }
            return (location, text.joined(separator: ", "))
        }
    }
}
