import ArgumentParser
import GeoSpend
import GeoSpendSpatiaLite

/// `geospend kinds`: the store kinds in the database (what a store --kind accepts).
struct KindsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kinds",
        abstract: "Store kinds with their number of stores (what --kind of stores accepts).",
        discussion: """
            A kind is an OpenStreetMap key and value, e.g. amenity:cafe. Stores without
            a kind are counted as (none) (null in JSON).

            Example:
              geospend kinds
              geospend kinds --format json
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "table, json or csv.") var format: OutputFormat = .table

    func run() async throws {
        let kinds = try await database.openBackend().read { try $0.storeKindCounts() }
        switch format {
        case .json:
            printOut(JSONOutput.array(kinds.map { k in
                .object([("kind", k.kind.map { .string($0) } ?? .null), ("stores", .integer(Int64(k.stores)))])
            }).serialized() + "\n")
        case .csv:
            printOut(CSVTable(headers: ["kind", "stores"], rows: kinds.map { [$0.kind ?? "", String($0.stores)] }, textColumns: [0]).rendered())
        case .table:
            printOut(TextTable(headers: ["kind", "stores"], rows: kinds.map { [$0.kind ?? "(none)", String($0.stores)] }, rightAligned: [1]).rendered())
        }
    }
}
