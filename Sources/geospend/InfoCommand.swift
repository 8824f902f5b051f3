import ArgumentParser
import GeoSpend
import GeoSpendSpatiaLite

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Row counts of the database and the versions of the libraries under it.",
        discussion: "Example:\n  geospend info --db demo.sqlite")

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let counts = try await database.openStore().read { try $0.counts() }
        var out = "database   \(database.path)\n"
        out += "users      \(counts.users)\nexpenses   \(counts.expenses) (\(counts.geotaggedExpenses) with a position)\n"
        out += "stores     \(counts.stores)\n"
        for (name, version) in SpatiaLiteStore.libraryVersions.sorted(by: { $0.key < $1.key }) {
            out += "\(name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(version)\n"
        }
        printOut(out)
    }
}
