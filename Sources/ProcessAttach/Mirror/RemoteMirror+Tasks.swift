// What libswiftRemoteMirror says about tasks and actors (`swift_reflection_asyncTaskInfo`,
// `asyncTaskSlabAllocations`, `actorInfo`, `nextJob`), as Swift values; the calls are in
// RemoteMirror.swift, the one file that imports the C door.
//
// Relied on besides the library (Swift 6.3, 64-bit Linux, checked in the toolchain's runtime):
//   • `_swift_concurrency_debug_asyncTaskSize` (libswift_Concurrency) is the size of an
//     `AsyncTask`; its fragments follow it: a child task's (parent, next child: 16 bytes), a
//     task-group child's (its group: 8 bytes), then a future's, whose first word is its wait
//     queue, the low two bits its status (0 executing, 1 success, 2 error).
//   • A task that has not started yet has no async frame but the task's completion function,
//     and its resume function is its entry point.
//   • A class is an actor when its nominal type descriptor (class metadata @40) has the
//     `Class_IsActor` flag: bit 23 of the descriptor's first word (kind-specific flag 7).
//     (`swift_reflection_metadataIsActor` answers only for images given with
//     `swift_reflection_addImage`, which reads section headers from the target's memory; the
//     attach gives the mirror each image's sections from its file instead.)

/// What the mirror read of one task.
struct MirrorTaskInfo {
    /// The task's id (`Task` ids count up from 1 in a process).
    var id: UInt64
    /// The priority it was enqueued with (`TaskPriority`'s raw value).
    var enqueuePriority: Int
    var isChildTask: Bool
    var isFuture: Bool
    var isGroupChildTask: Bool
    var isAsyncLetTask: Bool
    var isCancelled: Bool
    /// Whether a thread runs it now; nil when the runtime does not say.
    var isRunning: Bool?
    /// Whether it waits in an executor's queue.
    var isEnqueued: Bool
    /// Where it resumes: its innermost frame's resume function (its entry point before it
    /// starts).
    var resumeFunction: UInt
    /// The first slab of its allocator (where its async frames live), or 0.
    var allocatorSlab: UInt
    /// Its child tasks (a task group's, an `async let`'s).
    var children: [UInt]
    /// The resume functions of its suspended frames' callers, innermost first: where each
    /// caller continues once its callee returns.
    var backtrace: [UInt]
}

/// Why the mirror could not read a task.
struct MirrorTaskError: Error {
    var reason: String
}

/// What the mirror read of one default actor.
struct MirrorActorInfo {
    /// 0 idle, 1 scheduled, 2 running, 3–4 being destroyed.
    var state: UInt8
    /// The first job of its queue, or 0.
    var firstJob: UInt
}

extension RemoteMirror {
    /// The most jobs read from one actor's queue.
    static let actorQueueLimit = 10_000

    /// The jobs queued on the actor at `actor`, first to last (at most
    /// ``actorQueueLimit``; a loop in the list ends the walk).
    func queuedJobs(ofActor actor: UInt) -> [UInt] {
        guard let info = actorInfo(at: actor) else { return [] }
        var jobs: [UInt] = []
        var seen = Set<UInt>()
        var job = info.firstJob
        while job != 0, jobs.count < Self.actorQueueLimit, seen.insert(job).inserted {
            jobs.append(job)
            job = nextJob(after: job)
        }
        return jobs
    }
}
