import ArgumentParser
import GeoSpend

struct SnapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snap",
        abstract: "Assign geotagged expenses without a store to the nearest store within a tolerance.",
        usage: """
            geospend snap [--user <user>] [--tolerance <tolerance>]
              [--ambiguity <ambiguity>] [--kind <kind>] [--dry-run]
              [--format <format>] [--db <db>]
            """,
        discussion: """
            The search radius is --tolerance, or the expense's accuracy_m when larger. A
            store named by the expense's merchant text (case- and accent-insensitive) is
            preferred; otherwise the nearest store, unless the next one is less than
            --ambiguity farther: then the expense is reported as ambiguous and left
            alone. Running it again changes nothing more.

            Example:
              geospend snap --dry-run
              geospend snap --user user1 --tolerance 30m --format json
            """)

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var replica: ReadReplicaOption
    @Option(help: "Only this user's expenses.") var user: String?
    @Option(help: "Search radius: 50m, 0.1km.") var tolerance: String = "50m"
    @Option(help: "Two stores closer in distance than this are ambiguous.") var ambiguity: String = "3m"
    @Option(help: "Only stores of this kind, e.g. amenity:cafe.") var kind: String?
    @Flag(help: "Show what would be assigned without writing.") var dryRun = false
    @Option(help: "table or json.") var format: SnapFormat = .table

    enum SnapFormat: String, ExpressibleByArgument { case table, json }

    func run() async throws {
        let store = try await database.openBackend(writable: !dryRun, replica: replica.readDB)
        if let user { try await NameChecks.user(user, in: store, database: database.path) }
        try await NameChecks.storeKind(kind, in: store)
        let request = SnapRequest(
            userID: user, tolerance: try Parse.distance(tolerance, option: "--tolerance"),
            ambiguityMargin: try Parse.distance(ambiguity, option: "--ambiguity"), storeKind: kind)
        let plan = try await Snapping.plan(request, store: store)
        let written = dryRun ? 0 : try await Snapping.apply(plan, to: store)
        switch format {
        case .json: printOut(SnapOutput.json(plan, written: written, dryRun: dryRun).serialized() + "\n")
        case .table: printOut(SnapOutput.table(plan, written: written, dryRun: dryRun))
        }
    }
}
