// The only Swift file that imports HeapDumps' C door (Sources/CHeapDump).
internal import CHeapDump

/// Thin calls into the fork dump and the watcher thread of `CHeapDump`.
enum HeapDumpDoor {
    /// Forks; the child writes this process's core to `descriptor`; waits for it.
    static func write(to descriptor: Int32) -> HeapDumpResult {
        var result = rg_dump_result()
        _ = rg_dump_write(descriptor, &result)
        return HeapDumpResult(result, path: nil)
    }

    /// Starts the watcher thread; 0 or an errno.
    static func startWatching(_ configuration: HeapDumpConfiguration) -> Int32 {
        var config = rg_watch_config()
        withUnsafeMutableBytes(of: &config.directory) { buffer in
            let bytes = Array(configuration.directory.utf8.prefix(buffer.count - 1)) + [0]
            buffer.copyBytes(from: bytes)
        }
        config.resident_threshold = UInt64(configuration.residentThreshold ?? 0)
        config.limit = Int32(clamping: configuration.limit)
        config.signal_number = configuration.signal ?? 0
        config.poll_milliseconds = Int32(
            clamping: configuration.pollInterval.components.seconds * 1000
                + configuration.pollInterval.components.attoseconds / 1_000_000_000_000_000)
        return rg_watch_start(&config)
    }

    static func stopWatching() { rg_watch_stop() }

    static var isWatching: Bool { rg_watch_running() != 0 }

    /// The dumps the watcher finished, in order.
    static var watchedDumps: [HeapDumpResult] {
        (0..<rg_watch_count()).compactMap { index in
            var result = rg_dump_result()
            var path = [CChar](repeating: 0, count: 1100)
            guard rg_watch_dump(index, &result, &path, Int32(path.count)) == 0 else { return nil }
            let text = String(
                decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return HeapDumpResult(result, path: text.isEmpty ? nil : text)
        }
    }

    /// The environment's settings, if it sets a trigger.
    static func configurationFromEnvironment() -> HeapDumpConfiguration? {
        var config = rg_watch_config()
        guard rg_watch_config_from_environment(&config) != 0 else { return nil }
        let directory = withUnsafeBytes(of: config.directory) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return HeapDumpConfiguration(
            directory: directory,
            residentThreshold: config.resident_threshold == 0
                ? nil : Int(clamping: config.resident_threshold),
            limit: Int(config.limit),
            signal: config.signal_number == 0 ? nil : config.signal_number,
            pollInterval: .milliseconds(Int(config.poll_milliseconds)))
    }

    /// `2GiB`, `512MiB`, `1G`, `4096` in bytes, or nil.
    static func parseBytes(_ text: String) -> Int? {
        let value = rg_parse_bytes(text)
        return value == 0 ? nil : Int(clamping: value)
    }

    /// This process's resident memory in bytes.
    static var residentBytes: Int { Int(clamping: rg_resident_bytes()) }
}

extension HeapDumpResult {
    init(_ result: rg_dump_result, path: String?) {
        self.init(
            path: path, pause: .nanoseconds(result.pause_nanoseconds),
            pauseCPUTime: .nanoseconds(result.pause_cpu_nanoseconds),
            duration: .nanoseconds(result.dump_nanoseconds), fileSize: Int(result.file_size),
            diskSize: Int(result.disk_size), residentBytes: Int(result.resident_bytes),
            errorCode: result.error != 0
                ? result.error : result.child_status != 0 ? result.child_status : nil)
    }
}
