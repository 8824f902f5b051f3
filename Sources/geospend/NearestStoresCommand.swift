import ArgumentParser
import GeoSpend

struct NearestStoresCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearest-stores",
        abstract: "The stores nearest to a point (geodesic metres), ties broken by id.",
        usage: """
            geospend nearest-stores --lat <lat> --lon <lon> [-k <k>]
              [--max-distance <max-distance>] [--kind <kind>] [--user <user>]
              [--format <format>] [--db <db>]
            """,
        discussion: """
            Example:
              geospend nearest-stores --lat 60.1710 --lon 24.9414 -k 5 \\
                  --kind amenity:cafe
              geospend nearest-stores --lat 60.1710 --lon 24.9414 \\
                  --max-distance 2km --format json
              geospend nearest-stores --lat 60.1841 --lon 24.9500 --user alice

            --user adds the stores that user added (`stores add`) to the shared
            ones; without it, the registry's stores alone.
            """)

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var replica: ReadReplicaOption
    @Option(parsing: .unconditional, help: "Latitude of the centre, degrees (WGS84); south is negative.") var lat: Double
    @Option(parsing: .unconditional, help: "Longitude of the centre, degrees (WGS84); west is negative.") var lon: Double
    @Option(name: .customShort("k"), help: "How many stores.") var count: Int = 5
    @Option(help: "Only stores within this distance: 2km, 800m.") var maxDistance: String?
    @Option(help: "Only this kind, e.g. amenity:cafe or shop:supermarket.") var kind: String?
    @Option(help: "Also the stores this user added (`stores add`).") var user: String?
    @Option(help: "table, json or csv.") var format: OutputFormat = .table

    func validate() throws {
        guard count > 0 else { throw ValidationError("-k must be at least 1") }
    }

    func run() async throws {
        let center = try Parse.coordinate(lat: lat, lon: lon)
        let limit = try maxDistance.map { try Parse.distance($0, option: "--max-distance") }
        let store = try await database.openBackend(replica: replica.readDB)
        try await NameChecks.storeKind(kind, in: store)
        var result = try await store.nearestStores(to: center, limit: count, maxDistance: limit, kind: kind)
        if let user {
            let editing = try await database.openBackend()
            try await NameChecks.user(user, in: editing, database: database.path)
            let added = try await editing.storeChoices(userID: user).added
            result = StoreChoiceListing.nearest(result, added: added, limit: count, maxDistance: limit, kind: kind)
        }
        switch format {
        case .json: printOut(QueryOutput.json(result).serialized() + "\n")
        case .csv: printOut(QueryOutput.csv(result))
        case .table: printOut(QueryOutput.table(result))
        }
    }
}
