import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write deterministic synthetic expenses (CSV) of people visiting real places.",
        usage: """
            geospend generate [--users <users>] [--expenses <expenses>]
              [--seed <seed>] [--scale <scale>] [--stores <stores>]
              [--places <places>] [--popular <popular> ...]
              [--id-prefix <prefix>] [--out <out>] [--stores-out <stores-out>]
            """,
        discussion: """
            The same arguments always give the same bytes. With --scale region the
            places are copied into towns 22 km apart until there are --stores stores;
            --stores-out writes them. --popular ID (repeatable, up to 25) makes a place
            every user's top favourite, so it gets many users in every month and hour
            (what a cross-user store report needs to publish); without it, each
            user's favourites are their own. At most 1,000,000 users, 1,000,000
            stores and 1,000,000,000 expenses (expenses are streamed; users and stores
            are held in memory). Files are written whole or not at all, and never
            over an SQLite database ($GEOSPEND_DB, ./geospend.sqlite or any other).
            Expense ids are --id-prefix and a number (e1, e2, …): give two sets
            meant for one database two prefixes.

            The places are --places FILE, else $GEOSPEND_PLACES, else the Helsinki
            places (Data/helsinki-places.geojson) found from the working folder, from
            the folders above the executable (a checkout's .build/debug/geospend), or in
            share/geospend/ beside an installed bin/.

            Example:
              geospend generate --users 20 --expenses 2000 --seed 7 --out expenses.csv
              geospend generate --users 40 --expenses 12000 --seed 7 \\
                  --popular 288130404 --popular 317766538 --out demo-expenses.csv
              geospend generate --users 1000 --expenses 1000000 --scale region \\
                  --stores 50000 --stores-out stores.csv --out expenses.csv
            """)

    @Option(help: "How many users.") var users: Int = 10
    @Option(help: "How many expenses.") var expenses: Int = 1000
    @Option(help: "Random seed.") var seed: UInt64 = 1
    @Option(help: "city (the places as they are) or region (towns of copies).") var scale: SyntheticData.Scale = .city
    @Option(help: "Stores for --scale region.") var stores: Int = 50_000
    @Option(help: "The real places to start from, GeoJSON or CSV (default: see above).") var places: String?
    @Option(help: "Where to write the expenses CSV ('-' for stdout).") var out: String = "-"
    @Option(help: "Also write the stores as CSV here.") var storesOut: String?
    @Option(help: "A place id every user has as a top favourite; repeatable, up to 25.") var popular: [String] = []
    @Option(help: "The expense ids' prefix, before their number.") var idPrefix: String = "e"

    /// Bounds that keep the generator within a few hundred MB, not a crash: users and stores are
    /// held in memory (peak RSS measured: 278 MB at 1M users, 205 MB at 1M stores), expenses
    /// stream (38 MB at 2M); 1e9 expenses are about 150 GB of CSV.
    static let maxUsers = 1_000_000
    static let maxExpenses = 1_000_000_000
    static let maxStores = 1_000_000

    func validate() throws {
        guard (1...Self.maxUsers).contains(users) else { throw ValidationError("--users must be between 1 and \(Self.maxUsers)") }
        guard (0...Self.maxExpenses).contains(expenses) else {
            throw ValidationError("--expenses must be between 0 and \(Self.maxExpenses) (about 150 GB of CSV)")
        }
        guard (1...Self.maxStores).contains(stores) else { throw ValidationError("--stores must be between 1 and \(Self.maxStores)") }
        guard popular.count <= 25 else { throw ValidationError("--popular: at most 25 places (a user has 25 favourites)") }
        // Ids are at most 128 characters (the importer's rule) and the number adds up to 10.
        guard (1...100).contains(idPrefix.utf8.count), idPrefix.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw ValidationError("--id-prefix: give 1 to 100 ASCII letters, digits or signs without spaces, e.g. demo-")
        }
    }

    func run() async throws {
        // Both outputs are checked before anything is written; neither may be the database
        // (--db is not an option here: $GEOSPEND_DB or ./geospend.sqlite) or any SQLite file.
        let database = ProcessInfo.processInfo.environment["GEOSPEND_DB"] ?? "geospend.sqlite"
        let protected = OutputFile.protecting(database: database)
        let storesTarget = try storesOut.map { try OutputFile.target($0, option: "--stores-out", protecting: protected) }
        if let storesOut, case .regular = storesTarget, OutputFile.sameFile(storesOut, out) {
            throw ValidationError("--stores-out and --out are the same file \(out): give two files")
        }
        let target = try OutputFile.target(out, protecting: protected)
        let placesFile = try places ?? Self.defaultPlaces()
        let data = SyntheticData(places: try Importer.readStores(from: placesFile), scale: scale, storeCount: stores)
        let index = Dictionary(data.stores.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        let popularIndices = try popular.map { id in
            guard let i = index[Identity.normalized(id)] else {
                throw ValidationError("--popular \(id): no place with that id in \(placesFile)")
            }
            return i
        }
        if let storesTarget {
            try await OutputFile.write(to: storesTarget) { sink in
                sink.raw(ImportCSV.storeHeader + "\n")
                for s in data.stores { sink.raw(ImportCSV.line(s)) }
            }
        }
        try await OutputFile.write(to: target) { sink in
            sink.raw(ImportCSV.expenseHeader + "\n")
            data.generateExpenses(users: users, count: expenses, seed: seed, popular: popularIndices, idPrefix: idPrefix) { sink.raw(ImportCSV.line($0)) }
        }
    }

    static let placesFile = "helsinki-places.geojson"

    /// Without --places: $GEOSPEND_PLACES, else Data/helsinki-places.geojson in the working
    /// folder or in a folder above the executable (`.build/debug/geospend` of a checkout finds
    /// the checkout's), else share/geospend/ beside an installed bin/ folder.
    static func defaultPlaces() throws -> String {
        if let path = ProcessInfo.processInfo.environment["GEOSPEND_PLACES"], !path.isEmpty { return path }
        let candidates = dataFileCandidates(placesFile)
        if let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) { return found }
        throw ValidationError(
            "no places file found: give one with --places FILE (GeoJSON or CSV) or $GEOSPEND_PLACES; looked for "
                + candidates.joined(separator: ", "))
    }
}

extension GenerateCommand {
    /// Where a file of Data/ is looked for: the working folder's Data/, share/geospend/ beside an
    /// installed bin/ folder, then Data/ in each folder above the executable.
    static func dataFileCandidates(_ name: String) -> [String] {
        var candidates = ["Data/" + name]
        if let executable = OutputFile.realPath("/proc/self/exe") {
            var folder = (executable as NSString).deletingLastPathComponent
            candidates.append((folder as NSString).deletingLastPathComponent + "/share/geospend/" + name)
            while folder != "/" && !folder.isEmpty {
                folder = (folder as NSString).deletingLastPathComponent
                candidates.append((folder == "/" ? "" : folder) + "/Data/" + name)
            }
        }
        return candidates
    }

    /// The first readable of `dataFileCandidates(name)`, or nil.
    static func dataFile(_ name: String) -> String? {
        dataFileCandidates(name).first { FileManager.default.isReadableFile(atPath: $0) }
    }
}

extension SyntheticData.Scale: ExpressibleByArgument {}
