import ArgumentParser
import GeoSpend

struct TrendsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trends",
        abstract: "Spending per month (YYYY-MM) per currency, empty months included.",
        usage: """
            geospend trends --user <user> [--from <from>] [--to <to>]
              [--by category|store] [--format table|json|csv] [--db <db>]
            """,
        discussion: """
            One row per month and currency (and category or store with --by):
            the number of expenses and their total. A month is the local month of
            each expense's recorded offset. Months run from --from's month (else
            the first month with spending) to --to's month (else the last), and a
            month without spending is a row with 0, so charts have no gaps. Only
            expenses are counted, not income or transfers.

            Example:
              geospend trends --user user1
              geospend trends --user user1 --from 2025-01-01 --to 2025-12-31 \\
                  --by category --format csv
            """)

    enum Grouping: String, ExpressibleByArgument, CaseIterable { case category, store }

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var replica: ReadReplicaOption
    @Option(help: "The user.") var user: String
    @OptionGroup var window: WindowOptions
    @Option(help: "category or store: one series per category or store.") var by: Grouping?
    @Option(help: "table, json or csv.") var format: OutputFormat = .table

    func run() async throws {
        let (from, to) = try window.parsed()
        let store = try await database.openBackend(replica: replica.readDB)
        try await NameChecks.user(user, in: store, database: database.path)
        let grouping: TrendsRequest.Grouping = by.map { $0 == .category ? .category : .store } ?? .none
        let result = try await Trends.compute(TrendsRequest(userID: user, from: from, to: to, by: grouping), store: store)
        let groupHeaders: [String] = switch grouping {
        case .none: []
        case .category: ["category"]
        case .store: ["store_id", "store_name"]
        }
        func groupCells(_ r: TrendRow) -> [String] {
            switch grouping {
            case .none: []
            case .category: [r.group ?? ""]
            case .store: [r.group ?? "", r.groupName ?? ""]
            }
        }
        let total = { (r: TrendRow) in Money.decimalString(r.totalMinor, digits: r.currency.minorDigits) }
        switch format {
        case .json:
            printOut(result.json(userID: user, by: grouping).serialized() + "\n")
        case .csv:
            let headers = ["month", "currency"] + groupHeaders + ["count", "total"]
            let textColumns = Set(2..<(2 + groupHeaders.count))
            printOut(CSVTable(headers: headers, rows: result.rows.map { [$0.month, $0.currency.code] + groupCells($0) + [String($0.count), total($0)] },
                textColumns: textColumns).rendered())
        case .table:
            if result.rows.isEmpty {
                printOut("No expenses for \(user) in this window.\n")
                return
            }
            let headers = ["month", "currency"] + groupHeaders + ["count", "total"]
            let n = headers.count
            printOut(TextTable(
                headers: headers, rows: result.rows.map { [$0.month, $0.currency.code] + groupCells($0).map(OutputEscaping.visible) + [String($0.count), total($0)] },
                rightAligned: [n - 2, n - 1]).rendered())
        }
    }
}
