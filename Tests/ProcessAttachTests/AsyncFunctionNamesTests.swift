import Testing

@testable import ProcessAttach

@Suite("An async frame's function, named as a person reads it")
struct AsyncFunctionNamesTests {
    @Test("A private method keeps its name, without its file's discriminator")
    func aPrivateMethodKeepsItsName() {
        let demangled =
            "(2) await resume partial function for closure #2 in "
            + "ServiceLifecycle.ServiceGroup.(_run in _3C5F8A1B2D)(services: "
            + "[ServiceLifecycle.ServiceGroupConfiguration.ServiceConfiguration]) async throws -> ()"
        #expect(
            AsyncFunctionNames.short(demangled, module: "ServiceLifecycle")
                == "closure #2 in ServiceGroup._run(services:)")
    }

    @Test("A public generic function loses its clauses, module and types, keeping its labels")
    func aGenericFunctionKeepsItsLabels() {
        let demangled =
            "(1) await resume partial function for static (extension in Swift):"
            + "Swift.Task< where A == Swift.Never, B == Swift.Never>.sleep<A where A1: "
            + "Swift.Clock>(for: A1.Duration, tolerance: A1.Duration?, clock: A1) async throws -> ()"
        #expect(
            AsyncFunctionNames.short(demangled, module: nil)
                == "Task.sleep(for:tolerance:clock:)")
    }
}
