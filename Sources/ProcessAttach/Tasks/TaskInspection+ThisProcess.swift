import Locking
import RetainGraphUtilities

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension TaskInspection {
    private static let shared = Locked<SharedReader>(SharedReader())

    private struct SharedReader {
        var reader: TaskInspection?
        var failure: String?
    }

    /// The reader of this process's own tasks, made on first use; nil when it cannot be made
    /// (``thisProcessUnavailableReason`` says why).
    ///
    /// It loads the toolchain's libswiftRemoteMirror into this process (the attach's library,
    /// found the same way), gives it this process's Swift images, and reads tasks live: every
    /// read is a copy the kernel makes (`process_vm_readv`), so a task that ends while it is
    /// read cannot make this process fault. It refuses a library of another Swift version
    /// than this process's runtime. Callers are serialized (the mirror's context is not
    /// thread-safe).
    ///
    /// ```swift
    /// if let task = TaskInspection.thisProcess()?.task(at: address) {
    ///     print(task.summary)   // Task 12 (suspended) in Poller.run() at Poller.swift:40, …
    /// }
    /// ```
    ///
    /// - Returns: The shared reader, or nil.
    /// - Complexity: The first call loads the library and reads the images' reflection
    ///   sections (tens of milliseconds); later calls return the same reader.
    public static func thisProcess() -> TaskInspection? {
        let (known, failed) = shared.withLock { ($0.reader, $0.failure != nil) }
        if let known { return known }
        guard !failed else { return nil }
        // Made with no lock of ours held: making it loads a library (the loader's lock) and
        // reads /proc. Two threads that ask first at once may both make one; the first stored
        // is kept, the other released.
        let made: Result<TaskInspection, AttachError>
        do throws(AttachError) {
            made = .success(try makeThisProcessReader())
        } catch {
            made = .failure(error)
        }
        return shared.withLock { shared -> TaskInspection? in
            if let reader = shared.reader { return reader }
            guard shared.failure == nil else { return nil }
            switch made {
            case .success(let reader): shared.reader = reader
            case .failure(let error): shared.failure = error.description
            }
            return shared.reader
        }
    }

    /// Why ``thisProcess()`` returns nil, once it has.
    public static var thisProcessUnavailableReason: String? {
        shared.withLock { $0.failure }
    }

    private static func makeThisProcessReader() throws(AttachError) -> TaskInspection {
        let library = try MirrorLibrary.load(path: nil)
        if let mirror = library.runtimeVersion, let current = RuntimeVersion.current,
            mirror != current
        {
            throw .remoteMirrorUnavailable(
                reason: "\(library.path) reads Swift \(mirror), this process runs Swift \(current)")
        }
        let process = getpid()
        let images = ImageTable(
            mappings: ProcessFiles.mappings(of: process) ?? [], processID: process)
        return try TaskInspection(
            library: library, reader: MirrorReader(thisProcessImages: images),
            processID: process, memory: nil)
    }
}
