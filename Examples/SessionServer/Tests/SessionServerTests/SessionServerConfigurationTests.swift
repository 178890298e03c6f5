import SessionServer
import Testing

@Suite("Configuration")
struct SessionServerConfigurationTests {
    @Test("arguments win over the environment, which wins over the defaults")
    func argumentsWinOverEnvironment() throws {
        let configuration = try SessionServerConfiguration(
            arguments: ["--refresh", "task-loop-weak", "--port", "0"],
            environment: [
                "SESSION_SERVER_REFRESH": "repeated-task-cancelled",
                "SESSION_SERVER_REFRESH_MS": "250", "SESSION_SERVER_HOST": "127.0.0.2",
            ])
        #expect(
            configuration
                == SessionServerConfiguration(
                    host: "127.0.0.2", port: 0, refresh: .taskLoopWeak,
                    refreshInterval: .milliseconds(250)))
        #expect(try SessionServerConfiguration(arguments: [], environment: [:]) == .init())
    }

    @Test("every strategy is selectable by its name, and each name says leak or fix")
    func everyStrategyIsSelectable() throws {
        for strategy in RefreshStrategy.allCases {
            let configuration = try SessionServerConfiguration(
                arguments: ["--refresh", strategy.rawValue], environment: [:])
            #expect(configuration.refresh == strategy)
            #expect(strategy.leaksEndedSessions == strategy.rawValue.hasSuffix("-leaking"))
        }
        #expect(RefreshStrategy.leaking == [.repeatedTaskLeaking, .taskLoopLeaking])
        #expect(RefreshStrategy.fixed.count == 4)
    }

    @Test("rejects unknown options, missing values and invalid values with a message")
    func rejectsBadInput() {
        let cases: [([String], SessionServerConfigurationError)] = [
            (["--verbose"], .unknownOption("--verbose")),
            (["--port"], .missingValue("--port")),
            (["--port", "70000"], .invalidValue("--port", "70000")),
            (["--refresh", "never"], .invalidValue("--refresh", "never")),
            (["--refresh-ms", "0"], .invalidValue("--refresh-ms", "0")),
        ]
        for (arguments, expected) in cases {
            #expect(throws: expected) {
                try SessionServerConfiguration(arguments: arguments, environment: [:])
            }
        }
        #expect(
            SessionServerConfigurationError.invalidValue("--refresh", "never").description
                .contains("task-loop-leaking"))
    }
}
