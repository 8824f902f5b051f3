import ArgumentParser
import GeoSpend

struct NearCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "near",
        abstract: "A user's expenses within a geodesic radius of a point, nearest first, with totals per currency.",
        discussion: """
            Distances are WGS84 geodesics (Karney's algorithm), in metres. Write negative
            coordinates with '=': --lon=-73.98.

            Example:
              geospend near --user user1 --lat 60.1710 --lon 24.9414 --radius 300m
              geospend near --user user1 --lat 60.1710 --lon 24.9414 --radius 1.5km --from 2025-03-01 --to 2025-03-31 --format json
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The user whose expenses are searched.") var user: String
    @Option(parsing: .unconditional, help: "Latitude of the centre, degrees (WGS84); south is negative.") var lat: Double
    @Option(parsing: .unconditional, help: "Longitude of the centre, degrees (WGS84); west is negative.") var lon: Double
    @Option(help: "Radius: 500m, 1.5km, or metres.") var radius: String
    @OptionGroup var window: WindowOptions
    @Option(help: "Only this kind (expense, income, transfer); repeatable.") var kind: [ExpenseKind] = []
    @Option(help: "Only this category; repeatable.") var category: [String] = []
    @Option(help: "table, json or csv.") var format: OutputFormat = .table

    func run() throws {
        let center = try Parse.coordinate(lat: lat, lon: lon)
        let distance = try Parse.distance(radius, option: "--radius")
        let (from, to) = try window.parsed()
        let filter = ExpenseFilter(
            userID: user, from: from, to: to,
            kinds: Set(kind), categories: Set(category))
        let result = try database.openExisting().radiusSearch(center: center, radius: distance, filter: filter)
        switch format {
        case .json: printOut(QueryOutput.json(result).serialized() + "\n")
        case .csv: printOut(QueryOutput.csv(result))
        case .table: printOut(QueryOutput.table(result))
        }
    }
}

extension ExpenseKind: ExpressibleByArgument {}

struct NearestStoresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearest-stores",
        abstract: "The stores nearest to a point (geodesic metres), ties broken by id.",
        discussion: """
            Example:
              geospend nearest-stores --lat 60.1710 --lon 24.9414 -k 5 --kind amenity:cafe
              geospend nearest-stores --lat 60.1710 --lon 24.9414 --max-distance 2km --format json
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(parsing: .unconditional, help: "Latitude of the centre, degrees (WGS84); south is negative.") var lat: Double
    @Option(parsing: .unconditional, help: "Longitude of the centre, degrees (WGS84); west is negative.") var lon: Double
    @Option(name: .customShort("k"), help: "How many stores.") var count: Int = 5
    @Option(help: "Only stores within this distance: 2km, 800m.") var maxDistance: String?
    @Option(help: "Only this kind, e.g. amenity:cafe or shop:supermarket.") var kind: String?
    @Option(help: "table, json or csv.") var format: OutputFormat = .table

    func validate() throws {
        guard count > 0 else { throw ValidationError("-k must be at least 1") }
    }

    func run() throws {
        let center = try Parse.coordinate(lat: lat, lon: lon)
        let limit = try maxDistance.map { try Parse.distance($0, option: "--max-distance") }
        let hits = try database.openExisting().nearestStores(to: center, limit: count, maxDistance: limit, kind: kind)
        let result = NearestStoresResult(center: center, stores: hits)
        switch format {
        case .json: printOut(QueryOutput.json(result).serialized() + "\n")
        case .csv: printOut(QueryOutput.csv(result))
        case .table: printOut(QueryOutput.table(result))
        }
    }
}
