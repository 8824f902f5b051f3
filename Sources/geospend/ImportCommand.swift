import ArgumentParser
import Foundation
import GeoSpend

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import stores or expenses (all rows or none, unless --skip-invalid).",
        discussion: """
            Example:
              geospend import stores Data/helsinki-places.geojson
              geospend import expenses Data/sample-expenses.csv
            """,
        subcommands: [Stores.self, Expenses.self])

    struct Common: ParsableArguments {
        @OptionGroup var database: DatabaseOptions

        @Option(help: "File format (default: from the extension).")
        var format: ImportFormat?

        @Flag(help: "Import the good rows and list the bad ones, instead of importing nothing.")
        var skipInvalid = false

        @Argument(help: "The file to import.")
        var file: String

        var options: ImportOptions {
            var options = ImportOptions(skipInvalid: skipInvalid)
            if stderrIsTerminal {
                options.progress = { @Sendable rows in printErrInline("  \(rows) rows…") }
            }
            return options
        }

        func report(_ report: ImportReport, noun: String) {
            if stderrIsTerminal { printErrInline("") }
            for e in report.errors { printErr(e.description) }
            if report.rejected > report.errors.count { printErr("… and \(report.rejected - report.errors.count) more bad rows") }
            var line = "imported \(report.inserted) \(noun), \(report.unchanged) already present"
            if report.rejected > 0 { line += ", \(report.rejected) bad rows skipped" }
            printErr(line + " (\(database.path))")
        }
    }

    struct Stores: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import stores from GeoJSON, GPX waypoints or a CSV.",
            discussion: """
                CSV header: id,name,kind,brand,street,postcode,city,country,lat,lon (id, name, lat, lon required).
                GeoJSON: Points, Polygons and MultiPolygons (placed at their point on surface); feature id,
                properties name, kind, brand, street, postcode, city, country, and OpenStreetMap tags
                (amenity=cafe → kind amenity:cafe, addr:*). A feature without id gets its OSM id or one
                derived from its name and position, so a second import changes nothing.
                GPX: each <wpt> is a store: name, type (kind); ids derived from name and position.

                Examples:
                  geospend import stores Data/helsinki-places.geojson
                  geospend import stores Data/examples/places.gpx
                """)
        @OptionGroup var common: Common

        func run() throws {
            let store = try common.database.open()
            let report = try Importer.importStores(from: common.file, format: common.format, into: store, options: common.options)
            common.report(report, noun: "stores")
        }
    }

    struct Expenses: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import expenses from CSV or JSON Lines.",
            discussion: """
                Columns (CSV header or JSON keys): id,user,kind,amount,currency,occurred_at,title,category,
                merchant,lat,lon,accuracy_m,store_id,notes — only user, amount, currency, occurred_at are
                required. Amounts are decimal strings (12.50); occurred_at is RFC 3339 with an offset or a
                bare date. A bad row is reported as FILE:LINE: COLUMN: reason and nothing is written.

                Example:
                  geospend import expenses Data/sample-expenses.csv
                  geospend import expenses --skip-invalid bank-export.jsonl
                """)
        @OptionGroup var common: Common

        func run() throws {
            let store = try common.database.open()
            let report = try Importer.importExpenses(from: common.file, format: common.format, into: store, options: common.options)
            common.report(report, noun: "expenses")
        }
    }
}

extension ImportFormat: ExpressibleByArgument {}

func printErrInline(_ text: String) {
    FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
}
