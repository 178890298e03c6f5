import RetainGraph

extension LeakReport {
    /// A report on an object that is alive after its grace period.
    ///
    /// - Parameters:
    ///   - id: The object's node.
    ///   - subject: What the watch knows about it.
    ///   - analysis: The analysed (and enriched) snapshot.
    ///   - verdict: ``Verdict/leak`` or ``Verdict/transient``.
    ///   - pendingTimer: For a transient, the one-shot timer that will release it.
    ///   - figures: What the check's leaked objects retain, when it read the whole heap.
    static func retained(
        _ id: ObjectID, subject: ReportSubject, analysis: RetentionAnalysis, verdict: Verdict,
        pendingTimer: ObjectID? = nil, figures: RetainedFigures? = nil
    ) -> LeakReport {
        let snapshot = analysis.snapshot
        let retention = analysis.retention(of: id)
        let path = retention.rootPath ?? []
        let cycle = retention.cycle
        var builder = ReportBuilder(snapshot: snapshot)
        for reference in path { _ = builder.localID(of: reference.from) }
        let subjectLocal = builder.localID(of: id, label: subject.label)
        let pathSteps = builder.references(
            path, suspect: builder.suspect(in: path, isCycle: false, subject: id))
        let cycleSteps = cycle.map {
            builder.references($0, suspect: builder.suspect(in: $0, isCycle: true, subject: id))
        }
        let context = builder.context(around: id, excluding: path + (cycle ?? []))
        let mentioned = (path + (cycle ?? [])).flatMap { [$0.from, $0.to] }
        let subjectName = snapshot.node(id)?.shortTypeName ?? subject.typeName

        var hint: LeakHint
        var releaseDate: Double?
        if verdict == .transient, let pendingTimer {
            releaseDate = snapshot.node(pendingTimer)?.timer?.nextFireDate
            hint = HintRules.pendingOneShot(
                timer: snapshot.node(pendingTimer)?.shortTypeName ?? "timer",
                subject: subjectName, fireDate: releaseDate, now: subject.reportedAt)
        } else {
            hint = HintRules.leak(
                path: path, cycle: cycle, snapshot: snapshot, subject: subjectName,
                subjectID: id)
        }
        var object =
            builder.objects.first { $0.id == subjectLocal }
            ?? ReportObject(id: subjectLocal, typeName: subject.typeName, kind: "object")
        if object.label == nil { object.label = subject.label }
        if object.typeName == "?" { object.typeName = subject.typeName }
        if object.address == nil { object.address = subject.address.map(ReportBuilder.hex) }
        let objects = builder.objects.map { $0.id == subjectLocal ? object : $0 }
        // Where the leaked object and what holds it were made, besides every timer and proxy:
        // the path's first object (a Task, a Timer, a block) and the subject's direct holder.
        let holders = [
            path.first(where: { !(snapshot.node($0.to)?.isRoot ?? true) })?.to,
            path.last?.from, cycle?.last(where: { $0.to == id })?.from,
        ]
        let traced = Set(holders.compactMap { $0 } + [id])
        let retained = figures?.retained(by: id)
        return LeakReport(
            schemaVersion: currentSchemaVersion, verdict: verdict,
            fingerprint: snapshot.fingerprint(of: id, path: retention.rootPath, cycle: cycle)
                .rawValue,
            occurrences: 1, subject: object, reason: subject.reason,
            graceSeconds: subject.graceSeconds,
            secondsPastDeadline: subject.secondsPastDeadline,
            retention: RetentionKind(retention), objects: objects, path: pathSteps,
            cycle: cycleSteps, context: context, zombieTimer: nil, releaseDate: releaseDate,
            creationTraces: builder.creationTraces(of: mentioned + [id], also: traced),
            hint: hint,
            notes: notes(objects: objects, references: pathSteps + (cycleSteps ?? []) + context),
            reportedAt: subject.reportedAt, watchLocation: subject.location,
            retainedBytes: retained?.bytes, retainedCount: retained?.count)
    }

    /// A report on a timer still firing at an owner that died.
    ///
    /// - Parameters:
    ///   - timer: The zombie timer's node.
    ///   - subject: What the watch knew about the dead owner.
    ///   - analysis: The analysed snapshot.
    static func zombie(
        timer: ObjectID, subject: ReportSubject, analysis: RetentionAnalysis
    ) -> LeakReport {
        let snapshot = analysis.snapshot
        let retention = analysis.retention(of: timer)
        let path = retention.rootPath ?? []
        let cycle = retention.cycle
        var builder = ReportBuilder(snapshot: snapshot)
        for reference in path { _ = builder.localID(of: reference.from) }
        let timerLocal = builder.localID(of: timer)
        let pathSteps = builder.references(
            path, suspect: builder.suspect(in: path, isCycle: false, subject: timer))
        let cycleSteps = cycle.map {
            builder.references(
                $0, suspect: builder.suspect(in: $0, isCycle: true, subject: timer))
        }
        let context = builder.context(around: timer, excluding: path + (cycle ?? []))
        let owner = builder.addDeadObject(subject)
        let node = snapshot.node(timer)
        let timerName = node?.shortTypeName ?? "timer"
        let ownerName = owner.shortName
        var signature = "zombie:\(subject.typeName)|timer:\(node?.typeName ?? "?")|path:"
        for reference in path {
            signature += "\(snapshot.node(reference.from)?.typeName ?? "?")-"
            signature += "\(reference.ownership.rawValue):\(reference.role.description)>"
        }
        let mentioned = (path + (cycle ?? [])).flatMap { [$0.from, $0.to] } + [timer]
        return LeakReport(
            schemaVersion: currentSchemaVersion, verdict: .zombie,
            fingerprint: LeakFingerprint.hashing(signature).rawValue, occurrences: 1,
            subject: owner,
            reason: subject.reason, graceSeconds: subject.graceSeconds,
            secondsPastDeadline: subject.secondsPastDeadline, retention: .deallocated,
            objects: builder.objects, path: pathSteps, cycle: cycleSteps, context: context,
            zombieTimer: timerLocal, releaseDate: nil,
            creationTraces: builder.creationTraces(of: mentioned),
            hint: HintRules.zombie(
                timer: timerName, subject: ownerName,
                firesIntoDeadTarget: node?.timer?.firesIntoDeadTarget ?? 0),
            notes: notes(objects: builder.objects, references: pathSteps + context),
            reportedAt: subject.reportedAt, watchLocation: subject.location)
    }

    /// The report's remarks: one per raw Foundation timer, one per reference reflection
    /// discovered, and one line for all the references the census read (each is marked
    /// `(found in the heap)` on its line already); a note repeated is written once with its
    /// count.
    static func notes(objects: [ReportObject], references: [ReportReference]) -> [String] {
        var notes: [String] = []
        for object in objects where KnownType(typeName: object.typeName) == .foundationTimer {
            notes.append(
                "raw Foundation.Timer\(object.address.map { " at \($0)" } ?? ""): on Linux it is "
                    + "never freed and keeps what its block captures strongly")
        }
        let index = ReportObjectIndex(objects)
        // A reference on both the path and the cycle is one reference, noted once.
        var inHeap = Set<String>()
        var inMemory = Set<String>()
        for reference in references where reference.isDiscovered {
            let from = index[reference.from]?.shortName ?? reference.from
            let to = index[reference.to]?.shortName ?? reference.to
            let key = "\(reference.from)>\(reference.to)>\(reference.description)"
            guard reference.foundIn != "heap" else {
                inHeap.insert(key)
                continue
            }
            guard inMemory.insert(key).inserted else { continue }
            notes.append(
                "\(from) \(reference.arrow) \(to) (\(reference.description)) was found by "
                    + "inspecting memory, not declared")
        }
        if !inHeap.isEmpty {
            notes.append(
                "\(counted(inHeap.count, "reference")) marked (found in the heap) "
                    + "\(inHeap.count == 1 ? "was" : "were") read from the heap by the census, "
                    + "not declared")
        }
        return collapsed(notes)
    }

    /// `notes` with each repeated note written once, at its first place, with its count:
    /// `… (6×)`.
    ///
    /// - Complexity: O(*n*).
    static func collapsed(_ notes: [String]) -> [String] {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for note in notes {
            if counts[note] == nil { order.append(note) }
            counts[note, default: 0] += 1
        }
        return order.map { note in
            let count = counts[note] ?? 1
            return count > 1 ? "\(note) (\(count)×)" : note
        }
    }
}

extension LeakReport.RetentionKind {
    init(_ retention: Retention) {
        switch retention {
        case .unexplained: self = .unexplained
        case .rootPath: self = .rootPath
        case .cycle: self = .cycle
        case .rootPathAndCycle: self = .rootPathAndCycle
        }
    }
}
