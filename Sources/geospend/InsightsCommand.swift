import ArgumentParser
import GeoSpend
import GeoSpendSpatiaLite

struct InsightsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insights",
        abstract: "Where a user's money goes, place by place: totals, averages, medians, visits, change.",
        usage: """
            geospend insights --user <user> [--by <by>] [--from <from>] [--to <to>]
              [--period <period>] [--kind <kind> ...] [--category <category> ...]
              [--limit <limit>] [--format <format>] [--db <db>]
            """,
        discussion: """
            One row per (place, currency), sorted by total. A place is a store, or (with
            --by place) a density cluster of nearby expense positions without a store
            (DBSCAN, 75 m, 2 points; a lone position is its own place). With --from and
            --to of the same form, each row is compared with the previous window of
            equal length. --period keeps the expenses assigned to a period (in the
            previous window too). Active zone budgets whose days hold the --to day (else
            today) follow, each with its zone and the percentage used on that day, as
            `budgets alerts` picks budgets.

            Example:
              geospend insights --user user1
              geospend insights --user user1 --from 2025-03-01 --to 2025-03-31 \\
                  --limit 10 --format json
              geospend insights --user user1 --period 1
            """)

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var replica: ReadReplicaOption
    @Option(help: "The user.") var user: String
    @Option(help: "store (stores only) or place (stores and clusters).") var by: PlaceGrouping = .place
    @OptionGroup var window: WindowOptions
    @OptionGroup var period: PeriodOption
    @Option(help: "Kinds to include; repeatable (default: expense).") var kind: [ExpenseKind] = []
    @Option(help: "Only this category; repeatable.") var category: [String] = []
    @Option(help: "At most this many rows.") var limit: Int?
    @Option(help: "table, json, csv or markdown.") var format: ReportFormat = .table

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        let (from, to) = try window.parsed()
        let request = InsightsRequest(
            userID: user, from: from, to: to,
            kinds: kind.isEmpty ? [.expense] : Set(kind), categories: Set(category), grouping: by, limit: limit)
        let store = try await database.openBackend(replica: replica.readDB)
        // One snapshot: the names checked, the insights and the zone budgets.
        let (user, category, periodID, path) = (user, category, period.period, database.path)
        let (insights, zones) = try await store.read { reader in
            var request = request
            try NameChecks.user(user, in: reader, database: path)
            try NameChecks.categories(category, userID: user, in: reader)
            request.period = try NameChecks.period(periodID, user: user, in: reader)?.id
            return (try LocationInsights.compute(request, reader: reader), try ZoneBudgets.summaries(in: reader, user: user, asOf: to?.localDate))
        }
        switch format {
        case .json: printOut(InsightsOutput.json(insights, budgets: zones).serialized() + "\n")
        case .csv: printOut(InsightsOutput.csv(insights))
        case .markdown: printOut(InsightsOutput.markdown(insights) + zoneLines(zones, bullet: "- "))
        case .table: printOut(InsightsOutput.table(insights) + zoneLines(zones, bullet: "  "))
        }
    }

    func zoneLines(_ zones: [BudgetSummary], bullet: String) -> String {
        guard let first = zones.first else { return "" }
        return "\nZone budgets as of \(first.asOf):\n" + ZoneBudgetsSection.lines(zones).map { bullet + $0 + "\n" }.joined()
    }
}

extension PlaceGrouping: ExpressibleByArgument {}
