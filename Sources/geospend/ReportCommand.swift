import ArgumentParser
import GeoSpend

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Cross-user store reports; figures from fewer than --min-users users are suppressed.",
        discussion: """
            Example:
              geospend report store 317766538 --format html > store.html
              geospend report stores --near 60.1710,24.9414 --radius 500m \\
                  --kind amenity:cafe
            """,
        subcommands: [OneStore.self, ManyStores.self])

    enum Format: String, ExpressibleByArgument { case table, markdown, json, html, csv }

    struct OneStore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "store",
            abstract: "One store: visitors, totals, average ticket, categories, weekday × hour, months, peers.",
            usage: """
                geospend report store <id> [--from <from>] [--to <to>]
                  [--period <period> --user <user>] [--min-users <min-users>]
                  [--format <format>] [--db <db>]
                """,
            discussion: """
                Nothing from fewer than --min-users distinct users is published, labels
                included: a currency or category with fewer users is not named; the weekday
                × hour grid always has its 7 × 24 cells; months run from the first to the
                last month with enough users, the ones between without enough shown as
                suppressed. When the withheld categories, months or hours (bare dates count
                as a withheld hour) come from too few users together, the smallest published
                one is withheld too, so the total minus what is shown is never a few users'
                figure. A store too few users visited reads like one nobody visited.

                The report covers every user, so --period ID --user U stands for the
                period's days (its start to its end), not its assigned expenses.

                Example:
                  geospend report store 317766538
                  geospend report store 317766538 --from 2025-01-01 --to 2025-06-30 \\
                      --format html > store.html
                  geospend report store 317766538 --period 1 --user user1
                """)
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var replica: ReadReplicaOption
        @Argument(help: "The store id.") var id: String
        @OptionGroup var window: WindowOptions
        @OptionGroup var period: ReportPeriodOptions
        @OptionGroup var suppression: SuppressionOptions
        @Option(help: "markdown, json or html.") var format: Format = .markdown

        func validate() throws {
            guard [.markdown, .json, .html].contains(format) else { throw ValidationError("--format must be markdown, json or html") }
        }

        func run() async throws {
            let (from, to) = try await period.window(window, database: database)
            let request = StoreReportRequest(storeID: id, from: from, to: to, minUsers: suppression.minUsers)
            let report: StoreReport
            do { report = try await StoreReport.compute(request, store: try await database.openBackend(replica: replica.readDB)) } catch let e as StoreReportError {
                throw ValidationError(e.description)
            }
            switch format {
            case .json: printOut(StoreReportOutput.json(report).serialized() + "\n")
            case .html: printOut(StoreReportOutput.html(report))
            default: printOut(StoreReportOutput.markdown(report))
            }
        }
    }

    struct ManyStores: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stores",
            abstract: "Key figures for many stores, optionally near a point and of one kind.",
            usage: """
                geospend report stores [--near <near> --radius <radius>] [--kind <kind>]
                  [--from <from>] [--to <to>] [--period <period> --user <user>]
                  [--min-users <min-users>] [--limit <limit>] [--format <format>]
                  [--db <db>]
                """,
            discussion: """
                Only stores with at least --min-users distinct users (per currency) are
                listed, so a store a few users visited cannot be told from one nobody
                visited. --period ID --user U stands for the period's days.

                Example:
                  geospend report stores --kind amenity:cafe --format markdown
                  geospend report stores --near 60.1710,24.9414 --radius 500m --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var replica: ReadReplicaOption
        @Option(parsing: .unconditional, help: "A centre LAT,LON (with --radius).") var near: String?
        @Option(help: "Radius around --near: 500m, 2km.") var radius: String?
        @Option(help: "Only stores of this kind.") var kind: String?
        @OptionGroup var window: WindowOptions
        @OptionGroup var period: ReportPeriodOptions
        @OptionGroup var suppression: SuppressionOptions
        @Option(help: "At most this many rows, largest totals first (default: all).") var limit: Int?
        @Option(help: "table, markdown, json, html or csv.") var format: Format = .table

        func validate() throws {
            guard (near == nil) == (radius == nil) else { throw ValidationError("--near and --radius go together") }
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run() async throws {
            var center: Coordinate?
            if let near {
                let parts = near.split(separator: ",").map(String.init)
                guard parts.count == 2 else { throw ValidationError("--near: write LAT,LON, e.g. 60.1710,24.9414") }
                do {
                    center = try Coordinate(latitude: try parseStrictDouble(parts[0]), longitude: try parseStrictDouble(parts[1]))
                } catch { throw ValidationError("--near: \(error)") }
            }
            let (from, to) = try await period.window(window, database: database)
            let store = try await database.openBackend(replica: replica.readDB)
            try await NameChecks.storeKind(kind, in: store)
            let report = try await StoreListReport.compute(
                near: center, radius: try radius.map { try Parse.distance($0, option: "--radius") }, kind: kind,
                from: from, to: to, minUsers: suppression.minUsers, limit: limit, store: store)
            switch format {
            case .json: printOut(StoreReportOutput.json(report).serialized() + "\n")
            case .html: printOut(StoreReportOutput.html(report))
            case .markdown: printOut(StoreReportOutput.markdown(report))
            case .csv: printOut(StoreReportOutput.csv(report))
            case .table: printOut(StoreReportOutput.table(report))
            }
        }
    }
}
