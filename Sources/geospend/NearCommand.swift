import ArgumentParser
import GeoSpend

struct NearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "near",
        abstract: "A user's expenses within a geodesic radius of a point, nearest first, with totals per currency.",
        usage: """
            geospend near --user <user> --lat <lat> --lon <lon> [--radius <radius>]
              [--from <from>] [--to <to>] [--period <period>] [--kind <kind> ...]
              [--category <category> ...] [--format <format>] [--db <db>]
            """,
        discussion: """
            Distances are WGS84 geodesics (Karney's algorithm), in metres. Negative
            coordinates are ordinary values: --lat -33.92 --lon 18.42.

            An unknown user or category is an error (exit 2) naming the closest existing
            one. When nothing is found but the same search with latitude and longitude
            swapped finds expenses, a note on stderr says so (exit 0).

            Example:
              geospend near --user user1 --lat 60.1710 --lon 24.9414 --radius 300m
              geospend near --user user1 --lat 60.1710 --lon 24.9414 --radius 1.5km \\
                  --from 2025-03-01 --to 2025-03-31 --format json
            """)

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var replica: ReadReplicaOption
    @Option(help: "The user whose expenses are searched.") var user: String
    @Option(parsing: .unconditional, help: "Latitude of the centre, degrees (WGS84); south is negative.") var lat: Double
    @Option(parsing: .unconditional, help: "Longitude of the centre, degrees (WGS84); west is negative.") var lon: Double
    @Option(help: "Radius: 500m, 1.5km, or metres (default: 1000m).") var radius: String?
    @OptionGroup var window: WindowOptions
    @OptionGroup var period: PeriodOption
    @Option(help: "Only this kind (expense, income, transfer); repeatable.") var kind: [ExpenseKind] = []
    @Option(help: "Only this category; repeatable.") var category: [String] = []
    @Option(help: "table, json or csv.") var format: OutputFormat = .table

    func run() async throws {
        let center = try Parse.coordinate(lat: lat, lon: lon)
        let distance = try radius.map { try Parse.distance($0, option: "--radius") } ?? RadiusResult.defaultRadius
        let (from, to) = try window.parsed()
        var filter = ExpenseFilter(
            userID: user, from: from, to: to,
            kinds: Set(kind), categories: Set(category))
        let store = try await database.openBackend(replica: replica.readDB)
        try await NameChecks.user(user, in: store, database: database.path)
        try await NameChecks.categories(category, userID: user, in: store)
        filter.period = try await period.resolved(user: user, in: store)?.id
        let swapped = lat != lon ? try? Coordinate(latitude: lon, longitude: lat) : nil
        let (result, swappedHasHits) = try await store.read { [filter] reader in
            let result = RadiusResult(center: center, radius: distance, hits: try reader.expenses(within: distance, of: center, filter: filter))
            guard result.hits.isEmpty, let swapped else { return (result, false) }
            return (result, try !reader.expenses(within: distance, of: swapped, filter: filter).isEmpty)
        }
        if swappedHasHits {
            // A valid query, so exit 0; but latitude and longitude swapped is the likelier story.
            printErr(
                "note: no expenses within \(radius ?? "1000m") of \(lat),\(lon); did you swap latitude and longitude? "
                    + "\(lon),\(lat) has expenses within \(radius ?? "1000m"): try --lat \(lon) --lon \(lat)")
        }
        switch format {
        case .json: printOut(QueryOutput.json(result).serialized() + "\n")
        case .csv: printOut(QueryOutput.csv(result))
        case .table: printOut(QueryOutput.table(result))
        }
    }
}

extension ExpenseKind: ExpressibleByArgument {}
