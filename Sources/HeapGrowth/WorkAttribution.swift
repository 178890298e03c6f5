import HeapCensus
import StackTraces

/// A function the measured work runs under, whose frame in a creation trace says the work
/// made the object.
///
/// Known by name: a release build specializes these functions and inlines them into their
/// specializations, and the symbolicator names every such copy after the original
/// ("function signature specialization <…> of static HeapGrowth.SynchronousMarker.run(…)"),
/// so a frame is the marker's when its name contains the marker's qualified name. (A name
/// read from a trace probed at run time named the probe's own specialization in release
/// builds, and no object was ever attributed to the work.)
enum WorkMarker: Sendable {
    /// ``SynchronousMarker/run(_:)``: synchronous work, and its settling.
    case synchronous
    /// ``MeasurementThread``'s loop: async work, run as the thread's jobs.
    case measurementThread

    /// What the names of the marker's frames contain.
    var qualifiedName: String {
        switch self {
        case .synchronous: "\(String(reflecting: SynchronousMarker.self)).run("
        case .measurementThread: "\(String(reflecting: MeasurementThread.self)).runJobs("
        }
    }
}

/// Tells the measured work's objects from those other threads made meanwhile, by their
/// creation traces: the work's pass through a ``WorkMarker`` frame.
///
/// Each return address is judged once (the symbolicator caches its names too), so classifying
/// thousands of objects made at a few sites costs a few lookups.
struct WorkAttribution {
    private let markers: [String]
    private var isMarker: [UInt: Bool] = [:]

    init(markers: [WorkMarker]) {
        self.markers = markers.map(\.qualifiedName)
    }

    /// Whether `trace` passes through a marker frame.
    mutating func isMadeByTheWork(_ trace: StackTrace) -> Bool {
        guard !markers.isEmpty else { return false }
        return trace.addresses.contains { isMarker(at: $0) }
    }

    /// Symbolicates every address of `traces` not judged before in one batch (one symbolizer
    /// run per image; the symbolicator then answers each address from its cache): asked
    /// address by address, each new one started a run of its own (0.3 s of the growth check
    /// at a million objects).
    func learnNames(in traces: [StackTrace]) {
        var unknown = Set<UInt>()
        for trace in traces {
            for address in trace.addresses where isMarker[address] == nil {
                unknown.insert(address)
            }
        }
        guard !unknown.isEmpty else { return }
        _ = StackTrace(addresses: Array(unknown)).symbolicated()
    }

    /// Whether a frame at `address` (or a function inlined there) is a marker's.
    private mutating func isMarker(at address: UInt) -> Bool {
        if let known = isMarker[address] { return known }
        let functions = StackTrace(addresses: [address]).symbolicated().compactMap(\.function)
        let found = functions.contains { function in
            markers.contains { function.contains($0) }
        }
        isMarker[address] = found
        return found
    }
}

/// What one measured round left: per candidate type, the live count's growth, and the new
/// instances alive at its end, split into those the work made and those made elsewhere.
struct RoundGrowth {
    var net: [String: Int] = [:]
    var byTheWork: [String: Int] = [:]
    var elsewhere: [String: Int] = [:]
    /// New instances alive at the round's end whose creation was traced, by type.
    var traced: [String: Int] = [:]
    /// The new instances the work made, by type (for the sample path).
    var workInstances: [String: [HeapObjectID]] = [:]
    /// Every new instance alive at the round's end, by type.
    var newInstances: [String: [HeapObjectID]] = [:]

    /// Compares the end of a round with its start, for `types`.
    ///
    /// The live counts come from the round's two ends, read quickly (counts), so that other
    /// work has little time to change them in between; the new instances are looked up in the
    /// measurement's last snapshot, which has their creation traces: an instance that died
    /// before it is not counted as the work's (it did not stay).
    ///
    /// - Parameters:
    ///   - start: Each type's live count and addresses when the round began.
    ///   - end: The same when it ended.
    ///   - final: The snapshot that ended the last round (with the traced types' creation
    ///     traces).
    ///   - types: The candidate types.
    ///   - attribution: How to tell the work's objects (its names learned for `final`'s traces:
    ///     ``WorkAttribution/learnNames(in:)``, once for both rounds).
    init(
        from start: TypeCensus, to end: TypeCensus, final: HeapSnapshot, types: [String],
        attribution: inout WorkAttribution
    ) {
        for type in types {
            let before = start.addresses[type] ?? []
            let after = end.addresses[type] ?? []
            net[type] = after.count - before.count
            var mine: [HeapObjectID] = []
            var new: [HeapObjectID] = []
            var traces: [(HeapObjectID, StackTrace)] = []
            for address in after.subtracting(before) {
                guard let id = final.object(at: address), final[id].typeName == type else {
                    continue  // died since (or its memory holds another object now)
                }
                new.append(id)
                if let trace = final.creationTrace(of: id) { traces.append((id, trace)) }
            }
            for (id, trace) in traces where attribution.isMadeByTheWork(trace) { mine.append(id) }
            traced[type] = traces.count
            byTheWork[type] = mine.count
            elsewhere[type] = new.count - mine.count
            workInstances[type] = mine
            newInstances[type] = new
        }
    }
}

/// The addresses of some types' live instances at one moment, from counts or a snapshot.
struct TypeCensus {
    var addresses: [String: Set<UInt>] = [:]

    init(_ census: HeapCounts, types: [String]) {
        for type in types { addresses[type] = census.addresses(ofType: type) }
    }

    init(_ snapshot: HeapSnapshot, types: [String]) {
        for type in types {
            addresses[type] = Set(snapshot.objects(ofType: type).map { snapshot[$0].address })
        }
    }
}
