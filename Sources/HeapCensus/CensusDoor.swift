// The only Swift file that imports the census's C door (Sources/CHeapCensus).
internal import CHeapCensus

/// Thin, typed calls into the census's C side.
enum CensusDoor {
    /// How allocations are seen in this build.
    enum Mode {
        case unavailable, malloc, sanitizer
    }

    static func prepare() -> Mode { mode(rg_census_prepare()) }
    static var mode: Mode { mode(rg_census_mode()) }

    private static func mode(_ raw: Int32) -> Mode {
        switch raw {
        case Int32(RG_MODE_MALLOC): return .malloc
        case Int32(RG_MODE_SANITIZER): return .sanitizer
        default: return .unavailable
        }
    }

    static var isRecording: Bool {
        get { rg_census_is_recording() }
        set { rg_census_set_recording(newValue) }
    }

    /// Whether the census has recorded since before the program's code ran.
    static var recordedSinceLaunch: Bool { rg_census_recorded_since_launch() }

    static func clear() { rg_census_clear() }
    static var count: Int { rg_census_count() }
    static var tableBytes: Int { rg_census_table_bytes() }
    static var stripeCount: Int { rg_census_stripe_count() }

    static let taskFlag = UInt(RG_ENTRY_TASK)
    static let tracedFlag = UInt(RG_ENTRY_TRACED)
    static let blockFlag = UInt(RG_ENTRY_BLOCK)
    static let flagMask = UInt(RG_ENTRY_FLAGS)

    /// Calls `body` with one stripe's entries while its lock is held (see the header).
    static func visitStripe(_ stripe: Int, _ body: (UnsafeBufferPointer<UInt>) -> Void) {
        withoutActuallyEscaping(body) { body in
            var box = body
            withUnsafeMutablePointer(to: &box) { pointer in
                rg_census_visit_stripe(
                    stripe,
                    { context, entries, count in
                        guard let context else { return }
                        let body = context.assumingMemoryBound(
                            to: ((UnsafeBufferPointer<UInt>) -> Void).self
                        ).pointee
                        body(UnsafeBufferPointer(start: entries, count: count))
                    }, UnsafeMutableRawPointer(pointer))
            }
        }
    }

    /// Runs `body` with the calling thread's allocations unrecorded (the census's own).
    static func internally<T>(_ body: () throws -> T) rethrows -> T {
        rg_census_enter_internal()
        defer { rg_census_leave_internal() }
        return try body()
    }

    /// One word of another object's memory. Transparent, so a debug build inlines it too: the
    /// scan makes several loads per object.
    @_transparent
    static func load(_ address: UInt) -> UInt {
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return 0 }
        return rg_census_load_word(pointer)
    }

    static func copy(from address: UInt, into buffer: UnsafeMutableRawPointer, count: Int) {
        guard let source = UnsafeRawPointer(bitPattern: address) else { return }
        rg_census_copy(buffer, source, count)
    }

    /// The name the pthread `thread` gave itself, or nil.
    static func threadName(_ thread: UInt) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        guard rg_census_thread_name(thread, &buffer, buffer.count) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    static func blockSize(_ address: UInt) -> Int {
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return 0 }
        return rg_census_block_size(pointer)
    }

    static func retainCount(_ address: UInt) -> Int {
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return 0 }
        return rg_census_retain_count(pointer)
    }

    /// The metadata word of a live census object at `address`, read under its stripe lock;
    /// 0 when the census does not know a live object there.
    static func metadataIfLive(_ address: UInt) -> UInt {
        rg_census_metadata_if_live(address, nil)
    }

    /// The metadata word of the census block at `address` (0 while the runtime has not written
    /// it yet), read under its stripe lock; nil when the census does not know a block there.
    static func liveMetadata(_ address: UInt) -> UInt? {
        var flags: UInt = 0
        let metadata = rg_census_metadata_if_live(address, &flags)
        return flags == 0 ? nil : metadata
    }

    /// The strong retain count and the unowned and weak references of the live census block at
    /// `address`, read under its stripe lock; nil when the census knows no live block there.
    static func counts(ofLiveBlockAt address: UInt) -> (strong: Int, unowned: Int, weak: Int)? {
        var strong = 0
        var unowned = 0
        var weak = 0
        guard rg_census_counts_if_live(address, &strong, &unowned, &weak) else { return nil }
        return (strong, unowned, weak)
    }

    /// The object at `address`, retained, if the census knows it as a live Swift object that
    /// is not deinitialising; nil otherwise.
    static func object(at address: UInt) -> AnyObject? {
        guard rg_census_try_retain(address), let pointer = UnsafeRawPointer(bitPattern: address)
        else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeRetainedValue()
    }

    static func mark(_ address: UInt, traced: Bool) -> Bool {
        rg_census_mark(address, traced ? tracedFlag : 0)
    }

    /// The creation hook: the new object, its metadata when known (nil in malloc mode: the
    /// header is not written yet), the size asked for, and its creation trace (return
    /// addresses read from frame pointers, innermost first, from the allocating function's
    /// caller).
    static func setCreationHook(
        _ hook: (
            @convention(c) (
                UnsafeMutableRawPointer, UnsafeRawPointer?, Int, UnsafePointer<UInt>, Int
            ) -> Void
        )?
    ) {
        rg_census_set_creation_hook(hook)
    }

    static func setTracing(_ on: Bool) { rg_census_set_tracing(on) }

    /// Calls `body` with the writable segments of every loaded image.
    static func writableSegments(_ body: (ClosedRange<UInt>, String) -> Void) {
        var segments: [(UInt, UInt, String)] = []
        withUnsafeMutablePointer(to: &segments) { pointer in
            rg_census_writable_segments(
                { context, start, end, image in
                    guard let context, end > start else { return }
                    let list = context.assumingMemoryBound(to: [(UInt, UInt, String)].self)
                    list.pointee.append((start, end, image.map { String(cString: $0) } ?? ""))
                }, UnsafeMutableRawPointer(pointer))
        }
        for (start, end, image) in segments { body(start...(end - 1), image) }
    }

    // MARK: Creation stacks

    /// The most frames a creation stack keeps.
    static let stackDepth = Int(RG_STACK_DEPTH)

    /// The creation stack of the live census block at `address`, innermost first from the
    /// allocating function's caller; nil when the census does not know the block or did not
    /// keep where it was made.
    static func stack(ofLiveBlockAt address: UInt) -> [UInt]? {
        let id = rg_census_site_if_live(address)
        guard id != 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt.self, capacity: stackDepth) { buffer in
            guard let base = buffer.baseAddress else { return nil }
            let depth = rg_census_stack(id, base, buffer.count)
            return depth > 0 ? Array(buffer.prefix(depth)) : nil
        }
    }

    static var stackCount: Int { rg_census_stack_count() }
    static var stacksShortened: Int { rg_census_stacks_shortened() }
    static var stacksDropped: Int { rg_census_stacks_dropped() }
    static var stackBytes: Int { rg_census_stack_bytes() }

    // MARK: Sampling

    /// One bucket of samples, as the C side keeps it (see `rg_sample_bucket_t`).
    struct SampleBucket {
        enum Kind { case object, raw, task }
        var stackOffset: Int
        var kind: Kind
        var size: Int
        var metadata: UInt
        var interval: Int
        var allocations: Int
        var frees: Int
    }

    static func startSampling(interval: Int) -> Bool { rg_sampling_start(max(interval, 1)) }
    static func stopSampling() { rg_sampling_stop() }
    static var isSampling: Bool { rg_sampling_is_on() }
    static var samplingInterval: Int { rg_sampling_interval() }
    static var liveSampleCount: Int { rg_sampling_live_count() }
    static var sampleTableBytes: Int { rg_sampling_table_bytes() }

    /// Every bucket and the stack words its `stackOffset` indexes (depth, then frames).
    ///
    /// The copy happens under the sampling lock into buffers allocated before it is taken (an
    /// allocation under that lock could not be sampled); if the tables grew meanwhile, again.
    static func readSamples() -> (buckets: [SampleBucket], words: [UInt]) {
        internally {
            var bucketCount = 0
            var wordCount = 0
            _ = rg_sampling_read(nil, 0, &bucketCount, nil, 0, &wordCount)
            while true {
                var raw = [rg_sample_bucket_t](
                    repeating: rg_sample_bucket_t(), count: bucketCount + 16)
                var words = [UInt](repeating: 0, count: wordCount + 256)
                let fits = raw.withUnsafeMutableBufferPointer { buckets in
                    words.withUnsafeMutableBufferPointer { words in
                        rg_sampling_read(
                            buckets.baseAddress, buckets.count, &bucketCount, words.baseAddress,
                            words.count, &wordCount)
                    }
                }
                guard fits else { continue }
                let buckets = raw.prefix(bucketCount).map { bucket in
                    SampleBucket(
                        stackOffset: Int(bucket.stack),
                        kind: bucket.kind == UInt32(RG_SAMPLE_BUCKET_TASK)
                            ? .task : bucket.kind == UInt32(RG_SAMPLE_BUCKET_RAW) ? .raw : .object,
                        size: Int(bucket.size), metadata: bucket.metadata,
                        interval: Int(bucket.interval), allocations: Int(bucket.allocations),
                        frees: Int(bucket.frees))
                }
                return (buckets, Array(words.prefix(wordCount)))
            }
        }
    }
}
