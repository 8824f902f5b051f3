import ArgumentParser
import GeoSpend

struct SummaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Income, expenses and balance per currency; transfers counted apart.",
        usage: """
            geospend summary --user <user> [--month <month>]
              [--from <from>] [--to <to>] [--period <period>] [--format <format>]
              [--db <db>]
            """,
        discussion: """
            Per currency: income, expenses (total and count), balance, transfers,
            and the first and last local day of the entries summed. --period sums
            the expenses assigned to a period (within --from/--to or --month when
            also given).

            Example:
              geospend summary --user user1 --month 2025-03
              geospend summary --user user1 --period 1 --format json
              geospend summary --user user1 --from 2025-01-01 --to 2025-06-30 \\
                  --format json
            """)

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var replica: ReadReplicaOption
    @Option(help: "The user.") var user: String
    @Option(help: "A calendar month, YYYY-MM (local days).") var month: String?
    @OptionGroup var window: WindowOptions
    @OptionGroup var period: PeriodOption
    @Option(help: "table, json, csv or markdown.") var format: ReportFormat = .table

    func validate() throws {
        if month != nil && !window.isEmpty { throw ValidationError("give --month or --from/--to, not both") }
    }

    func run() async throws {
        var (from, to) = try window.parsed()
        if let month {
            do { (from, to) = try SpendingSummary.month(month) } catch { throw ValidationError("--month: \(error)") }
        }
        let store = try await database.openBackend(replica: replica.readDB)
        // One snapshot: the names checked and the summary.
        let (user, periodID, path, window) = (user, period.period, database.path, (from, to))
        let summary = try await store.read { reader in
            try NameChecks.user(user, in: reader, database: path)
            let chosen = try NameChecks.period(periodID, user: user, in: reader)
            return try SpendingSummary.compute(userID: user, from: window.0, to: window.1, period: chosen, reader: reader)
        }
        switch format {
        case .json: printOut(SummaryOutput.json(summary).serialized() + "\n")
        case .csv: printOut(SummaryOutput.csv(summary))
        case .markdown: printOut(SummaryOutput.markdown(summary))
        case .table: printOut(SummaryOutput.table(summary))
        }
    }
}
