import HeapGraph
import RuntimeLayouts

// Where the sampled mode and creation sites meet the census's snapshot and the one layout
// registry.

/// The census's names for the types of sampled blocks.
enum CensusTypeNames {
    /// The name of a sampled block's type: the census's layout name for an object whose
    /// metadata is known, a fixed name for the other kinds.
    static func name(kind: SampledHeap.Kind, metadata: UInt) -> String {
        switch kind {
        case .rawMemory: return "raw memory (UnsafeMutableRawPointer.allocate)"
        case .task: return "Task"
        case .object:
            guard metadata != 0, let layout = LayoutRegistry.shared.layout(ofMetadata: metadata)
            else { return "(type not yet known)" }
            return layout.typeName
        }
    }
}

extension HeapSnapshot {
    /// Where the object `id` was made, if it is still alive and the census recorded its site.
    ///
    /// - Parameter id: An object of this snapshot.
    /// - Returns: Its ``CreationSite``, or nil.
    /// - Complexity: O(1).
    public func creationSite(of id: HeapObjectID) -> CreationSite? {
        guard process.isThisProcess, contains(id) else { return nil }
        return HeapCensus.creationSite(ofObjectAt: self[id].address)
    }
}

extension CensusTypeNames {
    /// Renames, in `types`, the tasks the concurrency runtime made to wake a `Task.sleep` (see
    /// ``/RuntimeLayouts/RuntimeTasks``): each sleeping task has one, so counting them as
    /// `Task` would double the program's tasks. A user reads "Task: 10" literally.
    ///
    /// The rule is the snapshot's (HeapGraph's `EdgeColumns.sleepWakeUpTasks`): a task whose
    /// first word (from offset 16, in order) that is the address of a live closure context
    /// points at a `Task.sleep`'s wake-up closure. The counts read no references, so the
    /// tasks' words are read here, each task under its stripe's lock (so it cannot be freed
    /// while read), with nothing allocated under the lock. Nothing is read unless a wake-up
    /// closure was counted: a process that never sleeps pays nothing.
    ///
    /// - Parameters:
    ///   - types: Each counted object's type: a layout index, `task` or another fixed type.
    ///   - addresses: Each counted object's address.
    ///   - layouts: The layouts `types` indexes.
    ///   - task: The type number of a task.
    ///   - wakeUpTask: The type number to give a wake-up task.
    /// - Complexity: O(*n*) to find the tasks and closures, then O(words of the tasks up to
    ///   their first closure) under the stripes' locks.
    static func renameSleepWakeUpTasks(
        types: inout [Int32], addresses: [UInt], layouts: [CompiledLayout], task: Int32,
        wakeUpTask: Int32
    ) {
        let isWakeUp = layouts.map(\.isSleepWakeUp)
        guard isWakeUp.contains(true) else { return }
        let isClosure = layouts.map { $0.kind == .closureContext || $0.kind == .block }
        let limit = layouts.first { $0.kind == .task }?.conservativeLimit ?? 8_192
        var taskAddresses: [UInt] = []
        var taskPositions: [Int] = []
        var closureAddresses: [UInt] = []
        var closureIsWakeUp: [Bool] = []
        for position in types.indices {
            let type = Int(types[position])
            if type == Int(task) {
                taskAddresses.append(addresses[position])
                taskPositions.append(position)
            } else if type >= 0, type < layouts.count, isClosure[type] {
                closureAddresses.append(addresses[position])
                closureIsWakeUp.append(isWakeUp[type])
            }
        }
        guard !taskAddresses.isEmpty, closureIsWakeUp.contains(true) else { return }
        let tasks = AddressIndex(taskAddresses)
        let closures = AddressIndex(closureAddresses)
        // Per task: 0 no closure found, 1 a wake-up closure first, 2 another closure first.
        var verdicts = [UInt8](repeating: 0, count: taskAddresses.count)
        verdicts.withUnsafeMutableBufferPointer { verdicts in
            closureIsWakeUp.withUnsafeBufferPointer { closureIsWakeUp in
                let mask = ~CensusDoor.flagMask
                for stripe in 0..<CensusDoor.stripeCount {
                    CensusDoor.visitStripe(stripe) { entries in
                        guard let base = entries.baseAddress else { return }
                        var entryIndex = 0
                        while entryIndex < entries.count {
                            let entry = base[entryIndex]
                            entryIndex += 1
                            guard entry & CensusDoor.taskFlag != 0 else { continue }
                            let address = entry & mask
                            let position = Int(tasks.rawIndex(of: address))
                            guard position >= 0 else { continue }
                            let end = min(CensusDoor.blockSize(address), limit)
                            var offset = 16
                            while offset + 8 <= end {
                                let closure = Int(
                                    closures.rawIndex(of: CensusDoor.load(address + UInt(offset))))
                                offset += 8
                                guard closure >= 0 else { continue }
                                verdicts[position] = closureIsWakeUp[closure] ? 1 : 2
                                break
                            }
                        }
                    }
                }
            }
        }
        for (index, position) in taskPositions.enumerated() where verdicts[index] == 1 {
            types[position] = wakeUpTask
        }
    }
}
