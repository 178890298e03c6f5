import Testing

@Suite("retain-graph --help")
struct CommandHelpTests {
    @Test("The overview names every subcommand, the ones that read a process or a core first")
    func theOverviewNamesEverySubcommand() throws {
        let help = try GitHubAnnotationTests.run(["--help"])
        #expect(help.status == 0)
        let listed = help.output.components(separatedBy: "SUBCOMMANDS:").last ?? ""
        let names = ["attach", "core", "dump", "heap", "render", "compare"]
        let positions = names.map { name in
            listed.range(of: "  \(name) ")?.lowerBound
        }
        #expect(!positions.contains(nil), "\(help.output)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        #expect(help.output.contains("attach PID --growth 30s"))
    }
}
