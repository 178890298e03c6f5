import Foundation
import ProcessAttach
import Testing

/// Every unreachable cycle of another process, grouped by shape (issue 31): `attach --cycles`
/// and `core --cycles` on a program with healthy and leaked instances of the same types mixed.
///
/// `attach-mixed-holders` leaks 3 watchers (each holds itself through its own callback) and 4
/// orders (each in an order → shipment → invoice → order cycle), beside 97 watchers in a
/// registry, 36 orders (cycles too) in a global book and 10 shipments in no cycle.
@Suite("Unreachable cycles of another process", .timeLimit(.minutes(10)))
struct UnreachableCyclesTests {
    static let module = "attach_mixed_holders."

    @Test("The two shapes with their counts, and no healthy instance among their objects")
    func twoShapesAndNoHealthyInstance() throws {
        let target = try AttachTargets.start("attach-mixed-holders")
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let cycles = UnreachableCycles(in: heap)
        #expect(cycles.groups.map(\.title) == ["Invoice ⇒ Order ⇒ Shipment", "Watcher"])
        #expect(cycles.groups.map(\.cycleCount) == [4, 3])
        #expect(cycles.groups.map(\.objectCount) == [12, 3])
        #expect(cycles.cycleCount == 7)
        guard cycles.groups.count == 2 else { return }
        let orders = cycles.groups[0]
        #expect(
            orders.sampleTypeNames == ["Invoice", "Order", "Shipment"].map { Self.module + $0 })
        #expect(orders.sample.map(\.role.description) == [".order", ".shipment", ".invoice"])
        #expect(orders.sample.allSatisfy { $0.ownership == .strong })
        #expect(orders.cycles.allSatisfy { Set($0.typeNames).count == 3 })
        // Exactly the instances no holder reaches, type by type: the 4 orders dropped from the
        // book (not the 36 in it, cycles too), their shipments and invoices (not the 10 loose
        // shipments), the 3 watchers not in the registry.
        let inCycles = Set(cycles.groups.flatMap { $0.cycles.flatMap(\.objects) })
        for (type, healthy, leaked) in [
            ("Order", 36, 4), ("Shipment", 46, 4), ("Invoice", 36, 4), ("Watcher", 97, 3),
        ] {
            let all = heap.objects(ofType: Self.module + type)
            let unreachable = heap.holdingGroups(of: all).filter {
                if case .unreachableCycle = $0.holding { return true }
                return false
            }.flatMap(\.objects)
            #expect(all.count == healthy + leaked, "\(type)")
            #expect(Set(unreachable) == Set(all.filter(inCycles.contains)), "\(type)")
            #expect(unreachable.count == leaked, "\(type)")
        }
        #expect(target.isRunningUntraced)
    }

    @Test("Shapes past the limit are counted on the headline; a new leak is a new shape")
    func limitAndNewShape() throws {
        let target = try AttachTargets.start("attach-mixed-holders")
        target.send("lease 3")
        _ = try target.waitForLine { $0 == "leased 4" }
        let cycles = UnreachableCycles(in: try HeapSnapshot.capture(processID: target.pid))
        #expect(
            cycles.groups.map(\.title) == [
                "Invoice ⇒ Order ⇒ Shipment", "Watcher", "PooledLease",
            ])
        #expect(cycles.groups.map(\.cycleCount) == [4, 3, 2])
        let limited = cycles.text(groupLimit: 1).split(separator: "\n").map(String.init)
        #expect(
            limited.first?.hasPrefix(
                "UNREACHABLE CYCLES: 9 cycles of 3 shapes, 17 objects, ") == true)
        #expect(limited.first?.contains(" (2 more shapes, 5 cycles: --all); ") == true)
        #expect(limited.contains { $0.hasPrefix("1. Invoice ⇒ Order ⇒ Shipment: 4 cycles") })
        #expect(!limited.contains { $0.hasPrefix("2. ") })
        #expect(cycles.text(groupLimit: nil).contains("\n3. PooledLease: 2 cycles, 2 objects, "))
    }
}

/// `retain-graph attach --cycles` and `retain-graph core --cycles`, run as a person would.
@Suite(
    "retain-graph --cycles", .timeLimit(.minutes(10)),
    .enabled(
        if: AttachTargets.toolCanAttach,
        "kernel.yama.ptrace_scope lets only a parent trace its children, and this process lacks CAP_SYS_PTRACE"
    ))
struct CyclesCommandTests {
    /// The lines from the `UNREACHABLE CYCLES` headline (or the `No unreachable cycles` line)
    /// on, addresses left out.
    static func cyclesSection(_ output: String) -> [String] {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start =
            lines.firstIndex {
                $0.hasPrefix("UNREACHABLE CYCLES: ") || $0.hasPrefix("No unreachable cycles")
            } ?? lines.endIndex
        return lines[start...].filter { !$0.hasPrefix("   e.g. 0x") }
    }

    @Test("attach --cycles prints both shapes, each with its sample cycle, and no type table")
    func attachCycles() throws {
        let target = try AttachTargets.start("attach-mixed-holders")
        let result = try AttachCommandTests.run(
            try CoreFileRuns.tool(), ["attach", "\(target.pid)", "--cycles"])
        #expect(result.status == 0, "\(result.error)")
        let section = Self.cyclesSection(result.output)
        #expect(
            section.first?.hasPrefix("UNREACHABLE CYCLES: 7 cycles of 2 shapes, 15 objects, ")
                == true, "\(result.output)")
        #expect(
            Array(section.dropFirst()) == [
                "",
                "1. Invoice ⇒ Order ⇒ Shipment: 4 cycles, 12 objects, 288 B (288 B retained)",
                "     Invoice ─(.order)⇒ Order",
                "     Order ─(.shipment)⇒ Shipment",
                "     Shipment ─(.invoice)⇒ Invoice",
                "",
                "2. Watcher: 3 cycles, 3 objects, 120 B (120 B retained)",
                "     Watcher ─(.onChange (a closure capturing Watcher))⇒ Watcher",
                "",
            ], "\(result.output)")
        #expect(!result.output.contains("count       bytes  type"))
        #expect(target.isRunningUntraced)
    }

    @Test("attach --cycles on a process with no unreachable cycle says so")
    func attachNoCycles() throws {
        let target = try AttachTargets.start("attach-many", ["200"])
        let result = try AttachCommandTests.run(
            try CoreFileRuns.tool(), ["attach", "\(target.pid)", "--cycles", "--all"])
        #expect(result.status == 0, "\(result.error)")
        let section = Self.cyclesSection(result.output)
        #expect(section.first?.hasPrefix("No unreachable cycles (") == true, "\(result.output)")
        #expect(section.first?.hasSuffix(" objects read).") == true)
    }

    @Test("core --cycles on a dump of the process gives the attach's groups")
    func coreCycles() throws {
        let target = try AttachTargets.start("attach-mixed-holders")
        let folder = try CoreFileRuns.folder("cycles")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = try CoreFileRuns.tool()
        let live = try AttachCommandTests.run(tool, ["attach", "\(target.pid)", "--cycles"])
        #expect(live.status == 0, "\(live.error)")
        let core = folder.appendingPathComponent("target.core").path
        let dump = try AttachCommandTests.run(tool, ["dump", "\(target.pid)", core])
        #expect(dump.status == 0, "\(dump.error)")
        let read = try AttachCommandTests.run(tool, ["core", core, "--cycles", "--all"])
        #expect(read.status == 0, "\(read.error)")
        let section = Self.cyclesSection(read.output)
        #expect(section.first?.hasPrefix("UNREACHABLE CYCLES: 7 cycles of 2 shapes, ") == true)
        #expect(section == Self.cyclesSection(live.output))
    }

    @Test("--cycles reads one heap: not with --growth or --tasks")
    func cyclesRefusesGrowthAndTasks() throws {
        let tool = try CoreFileRuns.tool()
        for extra in [["--growth", "1s"], ["--tasks"]] {
            let result = try AttachCommandTests.run(
                tool, ["attach", "\(getpid())", "--cycles"] + extra)
            #expect(result.status == 64, "\(extra)")
            #expect(result.error.contains("--cycles reads one heap"), "\(result.error)")
        }
    }
}
