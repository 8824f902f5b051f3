import ArgumentParser
import Foundation
import GeoSpend

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import stores or expenses (all rows or none, unless --skip-invalid).",
        discussion: """
            Example:
              geospend import stores Data/helsinki-places.geojson
              geospend import expenses Data/sample-expenses.csv
              geospend import positions Data/examples/positions/records.json --user alice
            """,
        subcommands: [Stores.self, Expenses.self, Positions.self])

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

        /// `DatabaseOptions.removingNewFileOnFailure`.
        func removingNewDatabaseOnFailure(_ body: () async throws -> Void) async throws {
            try await database.removingNewFileOnFailure(body)
        }

        func report(_ report: ImportReport, noun: String, leftOutBy: String = "the preset") {
            if stderrIsTerminal { printErrInline("") }
            for e in report.errors { printErr(e.description) }
            if report.rejected > report.errors.count { printErr("… and \(report.rejected - report.errors.count) more bad rows") }
            for note in report.duplicateNotes {
                printErr("\(file):\(note.location): \"\(OutputEscaping.visible(note.id))\" left out: the same transaction is stored as \"\(OutputEscaping.visible(note.storedID))\" (same day, amount and merchant)")
            }
            if report.duplicates > report.duplicateNotes.count { printErr("… and \(report.duplicates - report.duplicateNotes.count) more") }
            if report.duplicates > 0 { printErr("(--allow-duplicates imports them too)") }
            if report.updated > 0 {
                let more = report.updated > report.updatedIDs.count ? ", …" : ""
                printErr("updated: \(report.updatedIDs.map { OutputEscaping.visible($0) }.joined(separator: ", "))\(more)")
            }
            var line = "imported \(report.inserted) \(noun), \(report.unchanged) already present"
            if report.updated > 0 { line += ", \(report.updated) updated" }
            if report.duplicates > 0 { line += ", \(report.duplicates) duplicates left out" }
            if report.rejected > 0 { line += ", \(report.rejected) bad rows skipped" }
            if report.skipped > 0 { line += ", \(report.skipped) left out by \(leftOutBy)" }
            printErr(line + " (\(database.path))")
        }
    }

    struct Stores: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import stores from GeoJSON, GPX waypoints or a CSV.",
            usage: """
                geospend import stores [--db <db>] [--format <format>]
                  [--skip-invalid] <file>
                """,
            discussion: """
                CSV header: id,name,kind,brand,street,postcode,city,country,lat,lon
                (id, name, lat, lon required).

                GeoJSON: Points, Polygons and MultiPolygons (placed at their point on
                surface); feature id, properties name, kind, brand, street, postcode,
                city, country, and OpenStreetMap tags (amenity=cafe → kind
                amenity:cafe, addr:*). A feature without id gets its OSM id or one
                derived from its name and position, so a second import changes
                nothing.

                GPX: each <wpt> is a store: name, type (kind); ids derived from name
                and position.

                Examples:
                  geospend import stores Data/helsinki-places.geojson
                  geospend import stores Data/examples/places.gpx
                """)
        @OptionGroup var common: Common

        func run() async throws {
            try await common.removingNewDatabaseOnFailure {
                let store = try await common.database.openBackend(create: true)
                let report = try await Importer.importStores(from: common.file, format: common.format, into: store, options: common.options)
                common.report(report, noun: "stores")
            }
        }
    }

    struct Expenses: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import expenses from CSV, JSON Lines, an app export or a bank statement.",
            usage: """
                geospend import expenses [--db <db>] [--format <format>] [--skip-invalid]
                  [--preset <preset>] [--user <ID>] [--map <FIELD=COLUMN> ...]
                  [--map-value <FIELD:VALUE=STORED> ...] [--where <COLUMN=VALUE> ...]
                  [--skip-lines <N>] [--delimiter <C>] [--decimal-comma]
                  [--encoding <encoding>] [--date-format <PATTERN>]
                  [--timezone <IANA-NAME>] [--currency <CODE>] [--update]
                  [--allow-duplicates] [--dry-run] [--geotag] <file>
                """,
            discussion: """
                GeoSpend's own columns (CSV header or JSON keys): id, user, kind,
                amount, currency, occurred_at, title, category, merchant, lat,
                lon, accuracy_m, store_id, notes, period; user, amount, currency
                and occurred_at are required (--user and --currency can stand in
                for the first and third). Amounts are positive decimals (12.50);
                occurred_at is RFC 3339 with an offset or a bare date; period is
                one of the user's periods, by id or name (an unknown one refuses
                the file).

                Presets (--preset NAME):
                  firefly-iii    Firefly III's transactions CSV export
                  ezbookkeeping  ezBookkeeping's CSV or TSV export
                  revolut        Revolut's statement CSV (needs --timezone)
                  n26, monzo, wise  those banks' CSV exports
                  dkb, ing, sparkasse  German banks' CSV (Sparkasse: CSV-CAMT V2)
                  ynab, actual   YNAB's register, Actual Budget's CSV (need --currency)
                  mono           MONO's transactions, CSV or JSON (needs --currency;
                                 latitude 0 with longitude 0 is no position)
                  monzo-api      the Monzo API's transactions JSON (with positions)
                  ofx, qif, camt053, mt940  bank statements
                Any other delimited file: --map FIELD=COLUMN for each field
                whose column has another name; other columns are ignored.
                Without a mapped kind a negative amount is an expense and a
                positive one income; with one, the sign is dropped. Amounts may
                carry a currency sign or code and group thousands (€4.50,
                CHF 1'234.50, $1,234.50; -1.234,56 € with --decimal-comma).
                Two amount columns: --map outflow=COL --map inflow=COL. Columns
                joined with a space: --map occurred_at=Date+Time. Lines above
                the header are found by the mapped columns, or --skip-lines N.

                Bad rows are listed as FILE:LINE: COLUMN: reason (the first 20;
                reading stops there) and nothing is written, unless
                --skip-invalid. --dry-run shows how the columns were understood
                and the first rows as they would be stored, and writes nothing.

                Importing again: a row whose id is stored with the same content
                changes nothing; with other content it is refused, or rewritten
                with --update (a position or store the row does not give stays).
                A row with a new id that is a stored transaction of the same
                user, day, kind, amount and merchant (the same statement in
                another format: OFX and QIF, a CSV and camt.053) is left out
                with a note; --allow-duplicates imports it anyway.

                Examples:
                  geospend import expenses Data/sample-expenses.csv
                  geospend import expenses Data/examples/firefly-iii.csv \\
                    --preset firefly-iii --user alice
                  geospend import expenses Data/examples/ezbookkeeping.tsv \\
                    --preset ezbookkeeping --user alice
                  geospend import expenses bank.ofx --preset ofx --user alice
                  geospend import expenses mono.json --preset mono --user alice \\
                    --currency EUR
                  geospend import expenses Data/examples/revolut.csv \\
                    --preset revolut --user alice --timezone Europe/Helsinki
                  geospend import expenses Data/examples/bank-semicolon.csv \\
                    --user alice --delimiter ';' --encoding latin1 \\
                    --decimal-comma --date-format dd.MM.yyyy --currency EUR \\
                    --map occurred_at=Buchungstag --map amount=Betrag \\
                    --map merchant=Empfänger --map title=Verwendungszweck \\
                    --dry-run
                  geospend import expenses Data/examples/card-export.csv \\
                    --user alice --currency EUR --timezone Europe/Helsinki \\
                    --map occurred_at=Date+Time --map merchant=Description \\
                    --map amount=Amount --map kind=Type --where State=COMPLETED \\
                    --map-value kind:CARD_PAYMENT=expense \\
                    --map-value kind:REFUND=income --map-value kind:TOPUP=transfer
                """)
        @OptionGroup var common: Common

        @Option(help: "A known export (see the presets above).")
        var preset: ImportPreset?

        @Option(help: ArgumentHelp("The user of every row (for files without a user column).", valueName: "ID"))
        var user: String?

        @Option(help: ArgumentHelp("Read FIELD from the file's COLUMN (repeatable).", valueName: "FIELD=COLUMN"))
        var map: [String] = []

        @Option(
            name: .customLong("map-value"),
            help: ArgumentHelp("Store VALUE of FIELD as STORED, e.g. kind:CARD_PAYMENT=expense (repeatable).", valueName: "FIELD:VALUE=STORED"))
        var mapValue: [String] = []

        @Option(
            name: .customLong("where"),
            help: ArgumentHelp("Import only rows whose COLUMN is (=) or is not (!=) VALUE, e.g. State=COMPLETED (repeatable).", valueName: "COLUMN=VALUE"))
        var filters: [String] = []

        @Option(help: ArgumentHelp("The header is the first line after line N.", valueName: "N"))
        var skipLines: Int?

        @Option(help: ArgumentHelp("Field separator: ',' (default), ';', tab, '|'.", valueName: "C"))
        var delimiter: String?

        @Flag(help: "Amounts use a decimal comma and '.' for thousands (-1.234,56).")
        var decimalComma = false

        @Option(help: "Text encoding: utf8 (default), latin1, utf16.")
        var encoding: SourceEncoding = .utf8

        @Option(help: ArgumentHelp("Dates written like this, e.g. dd.MM.yyyy, MM/dd/yyyy HH:mm.", valueName: "PATTERN"))
        var dateFormat: String?

        @Option(help: ArgumentHelp("Zone of local times without offset, e.g. Europe/Helsinki.", valueName: "IANA-NAME"))
        var timezone: String?

        @Option(help: ArgumentHelp("Currency of rows whose file has none (ISO 4217, e.g. EUR).", valueName: "CODE"))
        var currency: String?

        @Flag(help: "Rewrite stored expenses whose id comes again with other content, instead of refusing them.")
        var update = false

        @Flag(help: "Import rows that are stored transactions under another id (same day, amount, merchant) too.")
        var allowDuplicates = false

        @Flag(help: "Show how the file would be read; write nothing.")
        var dryRun = false

        @Flag(help: "After the import, place --user's expenses that have no position from their location history and the merchant text (`geospend geotag`).")
        var geotag = false

        /// The options as an `ExpenseSource`; every mistake in them is a usage error (exit 2).
        func source() throws -> ExpenseSource {
            var source = ExpenseSource()
            source.preset = preset
            if preset != nil, !map.isEmpty {
                throw ValidationError("--map is for files without a preset; --preset \(preset!.rawValue) knows its columns")
            }
            if preset != nil, user == nil {
                throw ValidationError("--preset \(preset!.rawValue) needs --user: the user the rows belong to")
            }
            if let preset, preset.needsCurrency, currency == nil {
                throw ValidationError("--preset \(preset.rawValue) needs --currency: \(preset == .qif ? "QIF files do" : "its exports do") not say their currency (e.g. --currency EUR)")
            }
            for entry in map {
                guard let eq = entry.firstIndex(of: "="), eq != entry.startIndex, entry.index(after: eq) != entry.endIndex else {
                    throw ValidationError("--map \(entry): write FIELD=COLUMN, e.g. --map amount=Betrag")
                }
                let field = String(entry[..<eq]), column = String(entry[entry.index(after: eq)...])
                guard ExpenseSource.fields.contains(field) else {
                    let hint = ExpenseSource.suggestedField(for: field).map { "did you mean \"\($0)\"? " } ?? ""
                    throw ValidationError("--map \(entry): \"\(field)\" is not a field; \(hint)fields are \(ExpenseSource.fields.joined(separator: ", "))")
                }
                guard source.mapping[field] == nil else { throw ValidationError("--map \(field)= is given twice") }
                source.mapping[field] = column
            }
            for entry in mapValue {
                guard let colon = entry.firstIndex(of: ":"), let eq = entry.lastIndex(of: "="), colon < eq, colon != entry.startIndex else {
                    throw ValidationError("--map-value \(entry): write FIELD:VALUE=STORED, e.g. --map-value kind:CARD_PAYMENT=expense")
                }
                let field = String(entry[..<colon])
                let from = String(entry[entry.index(after: colon)..<eq]).trimmingCharacters(in: .whitespaces), to = String(entry[entry.index(after: eq)...])
                guard ExpenseSource.fields.contains(field) else {
                    throw ValidationError("--map-value \(entry): \"\(field)\" is not a field; fields are \(ExpenseSource.fields.joined(separator: ", "))")
                }
                guard source.conversions.valueMaps[field]?[from] == nil else { throw ValidationError("--map-value \(field):\(from)= is given twice") }
                source.conversions.valueMaps[field, default: [:]][from] = to
            }
            if preset != nil, !mapValue.isEmpty {
                throw ValidationError("--map-value is for files without a preset; --preset \(preset!.rawValue) knows its values")
            }
            for entry in filters {
                guard let filter = RowFilter(entry) else {
                    throw ValidationError("--where \(entry): write COLUMN=VALUE or COLUMN!=VALUE, e.g. --where State=COMPLETED")
                }
                source.filters.append(filter)
            }
            if preset?.statementFormat != nil, !filters.isEmpty || skipLines != nil {
                throw ValidationError("--where and --skip-lines read delimited files; --preset \(preset!.rawValue) reads a statement")
            }
            if let skipLines {
                guard skipLines >= 0 else { throw ValidationError("--skip-lines \(skipLines): give the number of lines above the header, 0 or more") }
                source.skipLines = skipLines
            }
            if let delimiter {
                switch delimiter {
                case ",", ";", "|": source.delimiter = UInt8(ascii: Unicode.Scalar(delimiter)!)
                case "\t", "tab", "\\t": source.delimiter = UInt8(ascii: "\t")
                default: throw ValidationError("--delimiter \(delimiter): use ',', ';', '|' or tab")
                }
            }
            source.encoding = encoding
            source.conversions.decimalComma = decimalComma
            if let dateFormat {
                do { source.conversions.dateFormat = try DateFormatPattern(dateFormat) } catch {
                    throw ValidationError("--date-format \(error)")
                }
            }
            if let timezone { source.conversions.timeZone = try PositionsCommand.zone(named: timezone) }
            if let currency {
                do { _ = try Currency(code: currency) } catch { throw ValidationError("--currency \(error)") }
                source.conversions.currency = currency
            }
            source.conversions.user = user
            return source
        }

        func run() async throws {
            var source = try self.source()
            source.notice = { printErr($0) }
            let leftOutBy = preset == nil ? "--where" : filters.isEmpty ? "the preset" : "the preset and --where"
            if dryRun {
                // No database is opened: a dry run creates no file.
                let preview = try Importer.previewExpenses(from: common.file, format: common.format, source: source)
                printOut(Self.describe(preview, file: common.file, leftOutBy: leftOutBy))
                return
            }
            if geotag, user == nil { throw ValidationError("--geotag needs --user: the person whose statement it is") }
            if geotag, dryRun { throw ValidationError("--geotag writes positions; leave it out of a --dry-run (`geospend geotag --dry-run` shows them)") }
            try await common.removingNewDatabaseOnFailure {
                var options = common.options
                options.updatesChanged = update
                options.allowsDuplicates = allowDuplicates
                guard geotag, let user else {
                    let store = try await common.database.openBackend(create: true)
                    let report = try await Importer.importExpenses(
                        from: common.file, format: common.format, source: source, into: store, options: options)
                    return common.report(report, noun: "expenses", leftOutBy: leftOutBy)
                }
                let store = try await common.database.openBackend(create: true)
                let report = try await Importer.importExpenses(
                    from: common.file, format: common.format, source: source, into: store, options: options)
                common.report(report, noun: "expenses", leftOutBy: leftOutBy)
                // After the import: a user the statement created has no setting (this machine's zone).
                let zone = try await PositionsCommand.zone(timezone, of: user, in: store)
                let placed = try await GeotagRun(userID: Identity.normalized(user), timeZone: zone).run(on: store)
                printErr("geotag: " + GeotagCommand.summary(placed, dryRun: false))
            }
        }

        /// The dry run's report: columns, conversions, first rows, counts. Within 80 columns: the
        /// columns as a two-column list and each row as a block of `field  value` lines, long
        /// values wrapped at spaces (a table of ten fields ran past 150), nothing cut.
        static func describe(_ p: ImportPreview, file: String, leftOutBy: String = "the preset") -> String {
            var out = "dry run of \(file): nothing written\n"
            if !p.columns.isEmpty {
                out += "\ncolumns:\n"
                let width = min(24, max(6, p.columns.map { OutputEscaping.visible($0.column).count }.max() ?? 0))
                out += labelled("column", "read as", width: width, indent: "")
                out += labelled(String(repeating: "-", count: width), "-------", width: width, indent: "")
                for c in p.columns { out += labelled(c.column, c.use, width: width, indent: "") }
            }
            out += "\nconversions:\n" + p.conversions.map { "  \($0)\n" }.joined()
            out += "\nfirst \(p.rows.count) rows as they would be stored:\n"
            for (n, e) in p.rows.enumerated() {
                out += "\nrow \(n + 1)\n"
                let fields: [(String, String?)] = [
                    ("id", e.id), ("user", e.userID), ("kind", e.kind.rawValue),
                    ("amount", "\(e.amount.decimalString) \(e.amount.currency.code)"), ("occurred_at", e.occurredAt.text),
                    ("title", e.title), ("merchant", e.merchant), ("category", e.category),
                    ("lat", e.location.map { "\($0.coordinate.latitude)" }), ("lon", e.location.map { "\($0.coordinate.longitude)" }),
                ]
                for (name, value) in fields { out += labelled(name, value ?? "", width: 11, indent: "  ") }
            }
            out += "\n"
            for e in p.errors { out += e.description + "\n" }
            if p.bad > p.errors.count { out += "… and \(p.bad - p.errors.count) more bad rows\n" }
            var counts = "rows: \(p.good) good, \(p.bad) bad"
            if p.skipped > 0 { counts += ", \(p.skipped) left out by \(leftOutBy)" }
            return out + counts + "\n"
        }

        /// `label` padded to `width`, then `value`, escaped for a terminal and wrapped at spaces to
        /// 80 columns; continuation lines start under the value. A label wider than `width`
        /// puts the value on the next line. Nothing is cut: a word longer than the space is split.
        static func labelled(_ label: String, _ value: String, width: Int, indent: String) -> String {
            let label = OutputEscaping.visible(label), value = OutputEscaping.visible(value)
            let margin = indent.count + width + 2, room = 80 - margin
            let pad = String(repeating: " ", count: margin)
            var out = indent + label
            if label.count > width {
                out += "\n" + pad
            } else {
                out += String(repeating: " ", count: width - label.count + 2)
            }
            var lines: [String] = [], line = ""
            for (n, piece) in value.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
                var word = Substring(piece)
                if n > 0 {
                    // Break at this space when the word does not fit after it.
                    if line.count + 1 + word.count <= room || line.isEmpty { line += " " } else { (lines, line) = (lines + [line], "") }
                }
                while line.count + word.count > room {
                    let cut = max(1, room - line.count)
                    lines.append(line + word.prefix(cut))
                    (word, line) = (word.dropFirst(cut), "")
                }
                line += word
            }
            lines.append(line)
            out += lines.joined(separator: "\n" + pad)
            while out.hasSuffix(" ") { out.removeLast() }
            return out + "\n"
        }
    }
}

extension ImportPreset: ExpressibleByArgument {}
extension SourceEncoding: ExpressibleByArgument {}

extension ImportFormat: ExpressibleByArgument {}
