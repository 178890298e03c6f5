/// How a text rendering shortens a long list in the middle, LeakCanary-style: the first and the
/// last items are shown, and one line in between says how many were left out.
///
/// Text is for a person; a path or cycle of thousands of references is read at its two ends
/// (where the root holds it, and what it holds last). JSON keeps every item.
struct Elision {
    /// How many items are shown from the start.
    let head: Int
    /// How many items are shown from the end.
    let tail: Int
    /// How many items are left out between them (0 when everything is shown).
    let omitted: Int

    /// Plans the shortening of `count` items so that at most `limit` are shown.
    ///
    /// Nothing is left out unless at least two items would be (one "left out" line never
    /// replaces a single item). `limit` is clamped to at least 2: the first and the last.
    ///
    /// - Complexity: O(1).
    init(count: Int, limit: Int) {
        let limit = max(2, limit)
        guard count - 1 > limit else {
            (head, tail, omitted) = (count, 0, 0)
            return
        }
        tail = limit / 2
        head = limit - tail
        omitted = count - limit
    }

    /// Whether the "left out" line goes before the item at `index`.
    func gapBefore(_ index: Int) -> Bool {
        omitted > 0 && index == head + omitted
    }

    /// The indices shown, in order.
    var shownIndices: [Int] {
        Array(0..<head) + Array((head + omitted)..<(head + omitted + tail))
    }

    /// The lines of the shown items, in order: `item`'s for each, after `gap` where items were
    /// left out.
    func lines(gap: [String], _ item: (Int) -> [String]) -> [String] {
        shownIndices.flatMap { (gapBefore($0) ? gap : []) + item($0) }
    }
}

/// `1234567` → `1,234,567`: counts in report text, independent of the locale.
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (offset, digit) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
        result.append(digit)
    }
    return value < 0 ? "-" + result : result
}

/// `1 reference` / `2 references`.
func counted(_ value: Int, _ noun: String) -> String {
    "\(grouped(value)) \(noun)\(value == 1 ? "" : "s")"
}

/// The report's objects by identity, built once per rendering so that every lookup is O(1).
struct ReportObjectIndex {
    private let objects: [String: ReportObject]

    /// Indexes `objects`; when two share an identity, the first wins (as ``LeakReport/object(_:)``).
    ///
    /// - Complexity: O(*o*).
    init(_ objects: [ReportObject]) {
        var byID: [String: ReportObject] = [:]
        byID.reserveCapacity(objects.count)
        for object in objects where byID[object.id] == nil { byID[object.id] = object }
        self.objects = byID
    }

    subscript(_ id: String) -> ReportObject? { objects[id] }
}
