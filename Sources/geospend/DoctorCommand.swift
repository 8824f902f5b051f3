import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the database file (integrity, schema, spatial indexes) and optionally repair it.",
        discussion: """
            Checks SQLite's integrity_check, the schema version, foreign keys,
            GeoSpend's indexes, SpatiaLite's geometry registration and triggers, each
            spatial index (rtreecheck and CheckSpatialIndex) and that lat/lon match each
            geometry. Exits 1 when something is wrong. --repair rebuilds the spatial
            indexes (RecoverSpatialIndex), missing triggers and indexes, and every index
            (REINDEX) in one transaction, then checks again. When a `users delete` still
            owes its clean-up (--no-vacuum, or a full disk after the commit), doctor
            reports it and --repair rewrites the file (VACUUM) and empties the
            write-ahead log; that needs as much free disk as the file (if it fails,
            doctor says the clean-up is not finished and exits 1; free space and run
            --repair again). Ids and names an earlier GeoSpend stored in another Unicode
            form than NFC (a decomposed "José" that --user José does not find) are
            counted; --repair rewrites them in NFC, with the rows that refer to them and
            their content hashes. An id whose NFC form is another row (one user stored
            twice) is named, with the other form's non-ASCII code points (U+0301), and
            left: export the NFC one, `users delete` it, run --repair again, then import
            the export. --repair also removes the hidden .NAME.creating-PID-… files a
            killed first open left beside the database. The map rollups (per-cell sums
            the H3 and heat layers read, docs/ROLLUPS.md) are compared with a
            recomputation from the expenses; --repair rebuilds them when they differ.
            Damage to the rows themselves cannot be repaired: restore a backup.

            Example:
              geospend doctor --db demo.sqlite
              geospend doctor --db demo.sqlite --repair --format json
            """)

    @OptionGroup var database: DatabaseOptions
    @Flag(help: "Rebuild spatial and secondary indexes and map rollups, rewrite ids and names in NFC, remove a killed first open's leftovers, then check again.") var repair = false
    @Option(help: "table or json.") var format: DoctorFormat = .table

    enum DoctorFormat: String, ExpressibleByArgument { case table, json }

    func run() async throws {
        let store = try database.openExisting(writable: true)  // CheckSpatialIndex needs a writable connection
        let repaired = repair ? try store.repair() : []
        let report = try store.checkHealth()
        switch format {
        case .json:
            let checks = report.checks.map { c in
                JSONOutput.object([("check", .string(c.name)), ("ok", .bool(c.ok)), ("detail", .string(c.detail))])
            }
            printOut(JSONOutput.object([
                ("database", .string(database.path)), ("healthy", .bool(report.isHealthy)),
                ("repaired", .array(repaired.map { .string($0) })), ("checks", .array(checks)),
            ]).serialized() + "\n")
        case .table:
            // Escaped once, as the table's cells are: a line may quote stored ids (a clash).
            var out = repaired.map { "repair: \(OutputEscaping.visible($0))\n" }.joined()
            out += TextTable(
                headers: ["check", "ok", "detail"],
                rows: report.checks.map { [$0.name, $0.ok ? "ok" : "FAIL", $0.detail] }
            ).rendered()
            printOut(out)
        }
        if !report.isHealthy {
            printErr("geospend: \(database.path): \(report.checks.filter { !$0.ok }.count) checks failed"
                + (repair ? "" : "; try `geospend doctor --repair`"))
            throw ExitCode(1)
        }
    }
}
