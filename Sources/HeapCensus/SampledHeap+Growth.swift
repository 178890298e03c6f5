import RetainGraphUtilities
import StackTraces

extension SampledHeap {
    /// How the estimated live memory of one type, allocated at one stack, changed between two
    /// readings: what `go tool pprof -diff_base` shows, with the census's type names.
    public struct Growth: Sendable, Hashable {
        /// The census's name for the type.
        public let typeName: String
        /// Where the objects were allocated, innermost first.
        public let stack: StackTrace
        /// The change in estimated live objects (negative when they shrank).
        public let objects: Double
        /// The change in estimated live bytes (negative when they shrank).
        public let bytes: Double

        /// The frame of your code that allocated: the first frame of ``stack`` that is not an
        /// initializer, a thunk or a system frame (symbolicated now).
        ///
        /// - Returns: The frame, or nil when the stack has none.
        public func allocationFrame() -> StackFrame? {
            let frames = stack.symbolicated()
            return frames.first { frame in
                frame.file != nil && !frame.isThunk && !frame.isSystem
                    && !CreationSite.isInitializer(frame.function)
            } ?? frames.first { !$0.isSystem } ?? frames.first
        }
    }

    /// What changed since `earlier`: per type and stack, the change in estimated live objects
    /// and bytes, largest growth first; unchanged entries are left out.
    ///
    /// Both readings must come from the same process. Their samples are cumulative (the
    /// sampled mode never forgets a bucket), so the difference of two readings is exactly what
    /// was allocated and not freed in between, whatever the sampling interval was.
    ///
    /// ```swift
    /// let before = HeapCensus.sampledHeap()
    /// for _ in 0..<1_000 { handleRequest() }
    /// let grew = HeapCensus.sampledHeap().growth(since: before).filter { $0.bytes > 0 }
    /// ```
    ///
    /// - Parameter earlier: An earlier reading.
    /// - Returns: The changes, by decreasing `bytes`.
    /// - Complexity: O(*r* log *r*) for *r* records in both readings.
    public func growth(since earlier: SampledHeap) -> [Growth] {
        struct Key: Hashable {
            var typeName: String
            var stack: StackTrace
        }
        var change: [Key: (objects: Double, bytes: Double)] = [:]
        for (records, sign) in [(records, 1.0), (earlier.records, -1.0)] {
            for record in records {
                let key = Key(typeName: record.typeName, stack: record.stack)
                let old = change[key] ?? (0, 0)
                change[key] = (
                    old.objects + sign * record.estimatedInUseObjects,
                    old.bytes + sign * record.estimatedInUseBytes
                )
            }
        }
        return change.compactMap { key, value in
            // Weights are floating point: differences of a few millionths are equal values.
            guard abs(value.bytes) > 1e-6 * max(1, abs(value.objects)) else { return nil }
            return Growth(
                typeName: key.typeName, stack: key.stack, objects: value.objects,
                bytes: value.bytes)
        }.sorted { $0.bytes > $1.bytes }
    }
}

extension SampledHeap.Growth: CustomStringConvertible {
    /// `+12.3 KiB in 120 Session at SessionTable.swift:31` (symbolicates the stack).
    public var description: String {
        var location = "an unknown place"
        if let frame = allocationFrame() {
            if let file = frame.file, let line = frame.line, line > 0 {
                location = "\(file.split(separator: "/").last.map(String.init) ?? file):\(line)"
            } else {
                location = frame.function ?? "0x" + String(frame.address, radix: 16)
            }
        }
        let sign = bytes < 0 ? "-" : "+"
        return "\(sign)\(ByteCount.description(abs(bytes))) in \(Int(objects.rounded())) "
            + "\(typeName) at \(location)"
    }
}
