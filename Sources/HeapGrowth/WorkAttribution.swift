import HeapCensus
import StackTraces

/// A stack trace taken under a marker frame (``MeasurementThread``'s loop, or
/// ``SynchronousMarker/run(_:)``), and which of its frames the marker is: symbolicated only
/// when the rounds are compared, in the same batch as the objects' creation traces.
struct MarkerProbe: Sendable {
    /// Which frame of the probe's trace is the marker's.
    enum Frame: Sendable {
        /// The outermost frame of the trace's one address (the function that captured it).
        case capturing
        /// The first frame that is neither inlined nor a thunk after the capturing one (the
        /// function that called the closure that captured it).
        case callerOfTheCapturingClosure
    }

    let trace: StackTrace
    let frame: Frame

    /// The marker's demangled name (symbolicated, or from the symbolicator's cache).
    func name() -> String? {
        switch frame {
        case .capturing:
            return trace.symbolicated().last?.function
        case .callerOfTheCapturingClosure:
            let frames = trace.symbolicated().filter { !$0.isInlined && !$0.isThunk }
            return frames.dropFirst().first?.function
        }
    }
}

/// Tells the measured work's objects from those other threads made meanwhile, by their
/// creation traces: the work's pass through its marker frame (``MeasurementThread``'s loop, or
/// ``SynchronousMarker/run(_:)``).
///
/// Function names are looked up once per return address (the symbolicator caches them too),
/// so classifying thousands of objects made at a few sites costs a few lookups; the markers'
/// names are looked up with the first batch.
struct WorkAttribution {
    private let probes: [MarkerProbe]
    /// The demangled names of the marker functions, once looked up.
    private var markers: Set<String>?
    private var names: [UInt: String?] = [:]

    init(markers: [MarkerProbe]) {
        probes = markers
    }

    /// Whether `trace` passes through a marker frame.
    mutating func isMadeByTheWork(_ trace: StackTrace) -> Bool {
        let markers = self.markers ?? resolveMarkers()
        guard !markers.isEmpty else { return false }
        for address in trace.addresses {
            if let name = name(at: address), markers.contains(name) { return true }
        }
        return false
    }

    /// Symbolicates every address of `traces` and of the markers' probes not seen before in one
    /// batch (one symbolizer run per image; the symbolicator then answers each address from its
    /// cache): asked address by address, each new one started a run of its own (0.3 s of the
    /// growth check at a million objects), and each round, type and probe a run of its own
    /// made three runs of a measurement.
    func learnNames(in traces: [StackTrace]) {
        var unknown = Set<UInt>()
        let probeTraces = markers == nil ? probes.map(\.trace) : []
        for trace in traces + probeTraces {
            for address in trace.addresses where names[address] == nil { unknown.insert(address) }
        }
        guard !unknown.isEmpty else { return }
        _ = StackTrace(addresses: Array(unknown)).symbolicated()
    }

    private mutating func resolveMarkers() -> Set<String> {
        let resolved = Set(probes.compactMap { $0.name() })
        markers = resolved
        return resolved
    }

    private mutating func name(at address: UInt) -> String? {
        if let known = names[address] { return known }
        let name = StackTrace(addresses: [address]).symbolicated().last?.function
        names[address] = name
        return name
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
    ///   - attribution: How to tell the work's objects.
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
            attribution.learnNames(in: traces.map(\.1))
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
