import Locking
import RetainGraphUtilities
import StackTraces

/// Reads a process's tasks through the toolchain's libswiftRemoteMirror: a stopped process's
/// copy (``init(memory:options:)``), or this process's own tasks, read live
/// (``thisProcess()``): one reader for both, as Swift's RemoteInspection reads its own process
/// and a remote one.
///
/// For each task the mirror gives its flags, id, children and async backtrace (the resume
/// function of each suspended frame); this reader adds the task's state, symbolicates the
/// frames in the process's image files (`llvm-symbolizer`, once per distinct address: every
/// identical task shares them), and, over a heap, finds every task and what each one retains
/// (``dump(of:)``).
///
/// ```swift
/// let memory = try StoppedProcess(processID: pid).captureMemory()   // then resume()
/// let tasks = try TaskInspection(memory: memory)
/// if let task = tasks.task(at: address) {
///     print(task.summary)   // Task 7 (suspended) in refreshForever(_:) at main.swift:25, awaiting …
/// }
/// ```
///
/// Not thread-safe on its own, as the mirror's context is not; ``thisProcess()``'s shared
/// reader serializes its callers.
public final class TaskInspection: @unchecked Sendable {
    let mirror: RemoteMirror
    let images: ImageTable
    /// The process whose files the images are (their paths are read under `/proc/PID/root`).
    let processID: Int32
    let isThisProcess: Bool
    /// `_swift_concurrency_debug_asyncTaskSize`: where a task's fragments start.
    private let taskSize: UInt?
    /// A memory copy's words (nil for this process, read live).
    let memory: ProcessMemory?
    /// Serializes this process's shared reader's callers.
    let lock = PthreadLock()

    /// A reader of the tasks in `memory`, a stopped process's copy.
    ///
    /// - Parameters:
    ///   - memory: What an attach copied (``StoppedProcess/captureMemory()``).
    ///   - options: Where the remote mirror library is (``AttachOptions/remoteMirrorPath``).
    /// - Throws: ``AttachError/remoteMirrorUnavailable(reason:)`` when the library cannot be
    ///   loaded or cannot read tasks.
    public convenience init(memory: ProcessMemory, options: AttachOptions = AttachOptions())
        throws(AttachError)
    {
        try self.init(memory: memory, library: MirrorLibrary.load(path: options.remoteMirrorPath))
    }

    convenience init(memory: ProcessMemory, library: MirrorLibrary) throws(AttachError) {
        try self.init(
            library: library, reader: MirrorReader(memory), processID: memory.processID,
            memory: memory)
    }

    init(library: MirrorLibrary, reader: MirrorReader, processID: Int32, memory: ProcessMemory?)
        throws(AttachError)
    {
        guard library.readsTasks else {
            throw .remoteMirrorUnavailable(reason: "\(library.path) cannot read tasks")
        }
        mirror = try RemoteMirror(library: library, reader: reader)
        images = reader.images
        self.processID = processID
        isThisProcess = memory == nil
        self.memory = memory
        let sizeSymbol = reader.images.image(named: "libswift_Concurrency.so")?
            .address(ofSymbol: "_swift_concurrency_debug_asyncTaskSize")
        let size = sizeSymbol.flatMap { Self.word(at: $0, in: memory) }
        taskSize = size.flatMap { $0 >= 64 && $0 <= 4096 ? $0 : nil }
    }

    /// The task at `address`, symbolicated; nil when no task the mirror can read is there.
    ///
    /// For this process's shared reader (``thisProcess()``), `address` is a live task's
    /// address in this process (the census knows every task: `HeapCensus.counts()`'s `Task`s);
    /// the task may end while it is read, and then reads as whatever its memory held (every
    /// read is a copy, none can fault).
    ///
    /// - Complexity: A few reads of the task's memory; a symbolizer run for addresses of its
    ///   backtrace not seen before.
    public func task(at address: UInt) -> AsyncTaskInfo? {
        readTasks([address]).first
    }

    /// What the task at `address` is doing, read without symbolicating its frames (a task not
    /// started reads as suspended); nil when no task the mirror can read is there.
    ///
    /// - Complexity: A few reads of the task's memory.
    public func state(ofTaskAt address: UInt) -> TaskState? {
        withReader {
            rawTasks([address]).first.map { state(of: $0.address, $0.info, frames: []) }
        }
    }

    /// The tasks at `addresses` that the mirror can read, in the same order, symbolicated
    /// together (one symbolizer run per image for every new address).
    public func tasks(at addresses: [UInt]) -> [AsyncTaskInfo] {
        readTasks(addresses)
    }

    /// Runs `body` holding the shared reader's lock when this is this process's reader: around
    /// the mirror's calls only, never around the symbolizer or the loader.
    func withReader<T>(_ body: () -> T) -> T {
        isThisProcess ? lock.withLock(body) : body()
    }

    /// What the mirror says of each task, unsymbolicated, with the state it can tell.
    func rawTasks(_ addresses: [UInt]) -> [(address: UInt, info: MirrorTaskInfo)] {
        addresses.compactMap { address in
            guard address >= 4096, address & 7 == 0,
                case .success(let info) = mirror.taskInfo(at: address)
            else { return nil }
            return (address, info)
        }
    }

    /// The tasks at `addresses`, symbolicated: read under the reader's lock, symbolicated
    /// without it.
    func readTasks(_ addresses: [UInt]) -> [AsyncTaskInfo] {
        symbolicatedTasks(withReader { rawTasks(addresses) })
    }

    /// The tasks the mirror read, symbolicated (no lock held: the symbolizer runs here).
    func symbolicatedTasks(_ raw: [(address: UInt, info: MirrorTaskInfo)]) -> [AsyncTaskInfo] {
        let resume = raw.map { Self.resumeAddresses($0.info) }
        let frames = symbolicate(Array(Set(resume.joined())))
        return zip(raw, resume).map { task, addresses in
            makeTask(task.address, task.info, addresses, frames)
        }
    }

    /// Builds the task from what the mirror read and the symbolicated frames.
    func makeTask(
        _ address: UInt, _ info: MirrorTaskInfo, _ addresses: [UInt], _ frames: [UInt: [StackFrame]]
    ) -> AsyncTaskInfo {
        let taskFrames = addresses.flatMap { frames[$0] ?? [StackFrame(address: $0)] }
        return AsyncTaskInfo(
            address: address, info: info, state: state(of: address, info, frames: taskFrames),
            frames: taskFrames, resumeAddresses: addresses)
    }

    /// The resume function, then the backtrace without its first entry when that repeats it.
    static func resumeAddresses(_ info: MirrorTaskInfo) -> [UInt] {
        var addresses = [info.resumeFunction]
        addresses +=
            info.backtrace.first == info.resumeFunction
            ? info.backtrace.dropFirst() : info.backtrace[...]
        return addresses.filter { $0 != 0 }
    }

    /// What the task is doing: the mirror's running and queued flags, the future's status for
    /// an ended task, and, for one with no frame of its own, whether its resume function is a
    /// resume point at all (a task that has not run resumes at its entry point).
    private func state(of address: UInt, _ info: MirrorTaskInfo, frames: [StackFrame])
        -> TaskState
    {
        if info.isRunning == true { return .running }
        if info.isEnqueued { return .enqueued }
        if isComplete(address, info) { return .completed }
        let own = frames.filter { !Self.isCompletion($0) }
        if own.count <= 1, let resume = own.first?.mangledName, !Self.isResumePoint(resume) {
            return .notStarted
        }
        return .suspended
    }

    /// Whether the future's wait queue says the task has ended (status 1 or 2).
    private func isComplete(_ address: UInt, _ info: MirrorTaskInfo) -> Bool {
        guard info.isFuture, let taskSize else { return false }
        var fragment = address &+ taskSize
        if info.isChildTask { fragment &+= 16 }
        if info.isGroupChildTask { fragment &+= 8 }
        guard let queue = Self.word(at: fragment, in: memory) else { return false }
        return (1...2).contains(queue & 3)
    }

    /// The word at `address` of the copy, or of this process when there is none.
    static func word(at address: UInt, in memory: ProcessMemory?) -> UInt? {
        if let memory { return memory.word(at: address) }
        return ThisProcessMemory.word(at: address)
    }

    /// Whether a mangled name is an async function's resume point (`…TQ1_`, `…TY0_`), or the
    /// runtime's resume adapters.
    static func isResumePoint(_ mangled: String) -> Bool {
        if mangled.contains("resume_adapter") { return true }
        guard mangled.hasSuffix("_"), let marker = mangled.dropLast().lastIndex(of: "T") else {
            return false
        }
        let tail = mangled[mangled.index(after: marker)...].dropLast()
        guard let kind = tail.first, kind == "Q" || kind == "Y" else { return false }
        return tail.dropFirst().allSatisfy(\.isNumber)
    }

    /// Whether a frame is the runtime's task completion (every task's outermost frame).
    static func isCompletion(_ frame: StackFrame) -> Bool {
        guard let name = frame.mangledName ?? frame.function else { return false }
        return name.hasPrefix("completeTask") || name.contains("completeTaskWithClosure")
    }
}
