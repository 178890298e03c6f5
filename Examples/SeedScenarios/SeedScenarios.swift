import LeakTracking

/// The catalogue of live seed scenarios, in `SCENARIOS.md` order.
///
/// ```swift
/// for scenario in SeedScenarios.table {
///     print(scenario.run().line)
/// }
/// ```
public enum SeedScenarios {
    /// The cases with an id in `SCENARIOS.md`'s verdict table (S13, S15, S17 and S19 are
    /// behaviour, checked by the TrackedTimers tests).
    public static let table: [Scenario] = [
        .s1, .s2a, .s2b, .s3, .s4, .s5a, .s5b, .s6a, .s6b, .s7a, .s7b, .s8, .s9, .s10, .s11a,
        .s11b, .s12a, .s12b, .s14, .s16, .s18a, .s18b, .s20,
    ]

    /// The plain `Foundation.Timer` case, outside the seed table.
    public static let foundationTimer: Scenario = .foundationTimer

    /// Every scenario: the table, then the Foundation timer case.
    public static var all: [Scenario] { table + [foundationTimer] }

    /// The scenario with case id `id` (`S1`, `S11b`, `FT`), if there is one.
    ///
    /// - Parameter id: The case id.
    /// - Returns: The scenario.
    public static func scenario(_ id: String) -> Scenario? {
        all.first { $0.id == id }
    }
}
