import ArgumentParser
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Row counts of the database and the versions of the libraries under it.",
        discussion: "Examples:\n  geospend info --db demo.sqlite\n  geospend info --db postgresql://me@127.0.0.1:5432/spending")

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var replica: ReadReplicaOption

    func run() async throws {
        let store = try await database.openBackend(replica: replica.readDB)
        let counts = try await store.read { try $0.counts() }
        var out = "database   \(database.path)\n"
        out += "users      \(counts.users)\nexpenses   \(counts.expenses) (\(counts.geotaggedExpenses) with a position)\n"
        out += "stores     \(counts.stores)\n"
        // The server's engine instead of SQLite's on PostgreSQL; GEOS and PROJ are GeoSpend's own.
        var versions = SpatiaLiteStore.libraryVersions
        if let server = store as? PostGISStore {
            versions = versions.filter { $0.key == "geos" || $0.key == "proj" }.merging(try await server.serverVersions()) { a, _ in a }
        }
        for (name, version) in versions.sorted(by: { $0.key < $1.key }) {
            out += "\(name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(version)\n"
        }
        printOut(out)
    }
}
