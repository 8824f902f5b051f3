import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write deterministic synthetic expenses (CSV) of people visiting real places.",
        discussion: """
            The same arguments always give the same bytes. With --scale region the places are
            copied into towns 22 km apart until there are --stores stores; --stores-out writes them.

            Example:
              geospend generate --users 20 --expenses 2000 --seed 7 --out expenses.csv
              geospend generate --users 1000 --expenses 1000000 --scale region --stores 50000 \\
                  --stores-out stores.csv --out expenses.csv
            """)

    @Option(help: "How many users.") var users: Int = 10
    @Option(help: "How many expenses.") var expenses: Int = 1000
    @Option(help: "Random seed.") var seed: UInt64 = 1
    @Option(help: "city (the places as they are) or region (towns of copies).") var scale: SyntheticData.Scale = .city
    @Option(help: "Stores for --scale region.") var stores: Int = 50_000
    @Option(help: "The real places to start from (GeoJSON or CSV).") var places: String = "Data/helsinki-places.geojson"
    @Option(help: "Where to write the expenses CSV ('-' for stdout).") var out: String = "-"
    @Option(help: "Also write the stores as CSV here.") var storesOut: String?

    func validate() throws {
        guard users > 0 else { throw ValidationError("--users must be at least 1") }
        guard expenses >= 0 else { throw ValidationError("--expenses must not be negative") }
        guard stores > 0 else { throw ValidationError("--stores must be at least 1") }
    }

    func run() throws {
        let data = SyntheticData(places: try Importer.readStores(from: places), scale: scale, storeCount: stores)
        if let storesOut {
            let w = try LineWriter(path: storesOut)
            w.write(ImportCSV.storeHeader + "\n")
            for s in data.stores { w.write(ImportCSV.line(s)) }
            try w.close()
        }
        let w = try LineWriter(path: out)
        w.write(ImportCSV.expenseHeader + "\n")
        data.generateExpenses(users: users, count: expenses, seed: seed) { w.write(ImportCSV.line($0)) }
        try w.close()
    }
}

extension SyntheticData.Scale: ExpressibleByArgument {}

/// Buffered writing to a file or stdout.
final class LineWriter {
    private let handle: FileHandle
    private var buffer = ""
    private let path: String

    init(path: String) throws {
        self.path = path
        if path == "-" {
            handle = .standardOutput
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw ValidationError("cannot create \(path)")
            }
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }
    }

    func write(_ s: String) {
        buffer += s
        if buffer.utf8.count > 1 << 20 { flush() }
    }

    private func flush() {
        handle.write(Data(buffer.utf8))
        buffer = ""
    }

    func close() throws {
        flush()
        if path != "-" { try handle.close() }
    }
}

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Row counts of the database and the versions of the libraries under it.",
        discussion: "Example:\n  geospend info --db demo.sqlite")

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        let counts = try database.openExisting().counts()
        var out = "database   \(database.path)\n"
        out += "users      \(counts.users)\nexpenses   \(counts.expenses) (\(counts.geotaggedExpenses) with a position)\n"
        out += "stores     \(counts.stores)\n"
        for (name, version) in SpatiaLiteStore.libraryVersions.sorted(by: { $0.key < $1.key }) {
            out += "\(name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(version)\n"
        }
        printOut(out)
    }
}
