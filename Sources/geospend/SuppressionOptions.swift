import ArgumentParser

/// `--min-users`, shared by the cross-user reports.
struct SuppressionOptions: ParsableArguments {
    @Option(help: "Suppress figures from fewer distinct users than this.")
    var minUsers: Int = 3

    func validate() throws {
        guard minUsers >= 1 else { throw ValidationError("--min-users must be at least 1") }
    }
}
