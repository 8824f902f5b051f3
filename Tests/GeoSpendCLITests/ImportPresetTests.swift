import Foundation
import Testing

/// `import expenses` on the example files of Data/examples, through the built binary: each
/// preset and a mapped bank file import, a second import changes nothing, stored values are
/// checked through `users export`, a dry run writes nothing, and the header and row errors
/// read as documented.
@Suite(.serialized) final class ImportPresetTests {
    let dir = Reliability.scratch("presets")
    deinit { try? FileManager.default.removeItem(at: dir) }

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try Reliability.geospend(args)
    }

    /// The stored expenses of `user`, by id, as `users export` writes them.
    static func exported(_ user: String, db: String) throws -> [String: [String: Any]] {
        let r = try Reliability.geospend(["users", "export", user, "--db", db])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        let expenses = try #require(doc["expenses"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: expenses.map { ($0["id"] as! String, $0) })
    }

    static let bankOptions = [
        "--user", "carol", "--delimiter", ";", "--encoding", "latin1", "--decimal-comma", "--date-format", "dd.MM.yyyy",
        "--currency", "EUR", "--map", "occurred_at=Buchungstag", "--map", "amount=Betrag", "--map", "merchant=Empfänger",
        "--map", "title=Verwendungszweck",
    ]

    /// Each example: its arguments, the rows imported and left out.
    static let examples: [(args: [String], imported: Int, leftOut: Int)] = [
        (["Data/examples/firefly-iii.csv", "--preset", "firefly-iii", "--user", "alice"], 12, 2),
        (["Data/examples/ezbookkeeping.csv", "--preset", "ezbookkeeping", "--user", "bob"], 12, 1),
        (["Data/examples/ezbookkeeping.tsv", "--preset", "ezbookkeeping", "--user", "bob"], 12, 1),
        (["Data/examples/bank-semicolon.csv"] + bankOptions, 15, 0),
    ]

    @Test(arguments: 0..<examples.count)
    func importsOnceAndASecondImportChangesNothing(example: Int) throws {
        let (args, imported, leftOut) = Self.examples[example]
        let db = dir.appendingPathComponent("e\(example).sqlite").path
        let first = try geospend(["import", "expenses"] + args + ["--db", db])
        #expect(first.status == 0, "\(first.err)")
        let outLeft = leftOut > 0 ? ", \(leftOut) left out by the preset" : ""
        #expect(first.err.hasPrefix("imported \(imported) expenses, 0 already present\(outLeft)"), "\(first.err)")
        let second = try geospend(["import", "expenses"] + args + ["--db", db])
        #expect(second.err.hasPrefix("imported 0 expenses, \(imported) already present\(outLeft)"), "\(second.err)")
    }

    @Test func fireflyValuesAreStoredAsTheExportMeansThem() throws {
        let db = dir.appendingPathComponent("ff.sqlite").path
        #expect(try geospend(["import", "expenses"] + Self.examples[0].args + ["--db", db]).status == 0)
        let e = try Self.exported("alice", db: db)
        let laptop = try #require(e["alice/firefly-iii/6"])
        #expect(laptop["kind"] as? String == "expense" && laptop["amount"] as? String == "1234.56")
        #expect(laptop["merchant"] as? String == "Verkkokauppa.com" && laptop["category"] as? String == "Shopping")
        #expect(laptop["notes"] as? String == "Receipt in the drawer,\nwarranty 2 years\ntags: work,hardware")
        let salary = try #require(e["alice/firefly-iii/5"])
        #expect(salary["kind"] as? String == "income" && salary["merchant"] as? String == "Acme Oy")
        #expect(e["alice/firefly-iii/7"]?["kind"] as? String == "transfer")
        #expect(e["alice/firefly-iii/10"]?["occurred_at"] as? String == "2025-03-31T08:05:00+03:00")
        #expect(e["alice/firefly-iii/1"] == nil, "the opening balance is not an expense")
    }

    @Test func ezbookkeepingPositionsAndOffsets() throws {
        let db = dir.appendingPathComponent("ez.sqlite").path
        #expect(try geospend(["import", "expenses"] + Self.examples[2].args + ["--db", db]).status == 0)
        let e = Array(try Self.exported("bob", db: db).values)
        let coffee = try #require(e.first { $0["occurred_at"] as? String == "2025-03-03T08:12:40+02:00" })
        #expect(coffee["lat"] as? Double == 60.1712 && coffee["lon"] as? Double == 24.9413)
        #expect(coffee["category"] as? String == "Coffee" && coffee["title"] as? String == "Robert's Coffee Kamppi")
        let tokyo = try #require(e.first { $0["currency"] as? String == "JPY" })
        #expect(tokyo["amount"] as? String == "1200" && tokyo["occurred_at"] as? String == "2025-04-03T12:00:00+09:00")
        #expect(tokyo["lat"] as? Double == 35.6812 && tokyo["lon"] as? Double == 139.7671)
    }

    @Test func mappedBankFileSignAndDecimalComma() throws {
        let db = dir.appendingPathComponent("bank.sqlite").path
        #expect(try geospend(["import", "expenses", "Data/examples/bank-semicolon.csv"] + Self.bankOptions + ["--db", db]).status == 0)
        let e = Array(try Self.exported("carol", db: db).values)
        let laptop = try #require(e.first { $0["merchant"] as? String == "Verkkokauppa.com" })
        #expect(laptop["kind"] as? String == "expense" && laptop["amount"] as? String == "1234.56")
        #expect(laptop["occurred_at"] as? String == "2025-03-15" && laptop["currency"] as? String == "EUR")
        let salary = try #require(e.first { $0["merchant"] as? String == "Acme Oy" })
        #expect(salary["kind"] as? String == "income" && salary["amount"] as? String == "3200.00")
        #expect(e.contains { $0["merchant"] as? String == "Café Ekberg" && $0["title"] as? String == "Frühstück" }, "Latin-1 read")
        #expect(e.filter { $0["merchant"] as? String == "Robert's Coffee" && $0["occurred_at"] as? String == "2025-03-03" }.count == 2,
                "two identical coffees stay two expenses")
    }

    /// A rejected import into a database that did not exist leaves no file behind (it left an
    /// empty 6.7 MB database); into an existing one it leaves that database as it was.
    @Test func aRejectedFirstImportLeavesNoDatabase() throws {
        let folder = dir.appendingPathComponent("rejected-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bad = folder.appendingPathComponent("bad.csv").path
        try "user,amount,currency,occurred_at\nann,4.50,EUR,2025-03-01\nann,4.5.0,EUR,2025-03-02\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let db = folder.appendingPathComponent("new.sqlite").path
        for args in [["expenses", bad], ["expenses", "Data/examples/bank-semicolon.csv"], ["stores", bad]] {
            let r = try geospend(["import"] + args + ["--db", db])
            #expect(r.status == 2, "\(args): \(r.err)")
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("new.sqlite") }
            #expect(left.isEmpty, "\(args) left \(left)")
        }
        // An existing database stays, with what it held.
        #expect(try geospend(["import", "expenses", "Data/sample-expenses.csv", "--db", db, "--skip-invalid"]).status == 0)
        let before = try Self.exported("user1", db: db).count
        #expect(try geospend(["import", "expenses", bad, "--db", db]).status == 2)
        let after = try Self.exported("user1", db: db).count
        #expect(FileManager.default.fileExists(atPath: db) && after == before && before > 0)
    }

    @Test func dryRunWritesNothing() throws {
        let db = dir.appendingPathComponent("dry.sqlite").path
        let r = try geospend(["import", "expenses", "Data/examples/bank-semicolon.csv"] + Self.bankOptions + ["--db", db, "--dry-run"])
        #expect(r.status == 0, "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: db), "a dry run created the database")
        #expect(r.out.contains("Betrag            amount (negative: expense, positive: income)"))
        #expect(r.out.contains("Valuta            ignored"))
        #expect(r.out.contains("dates: dd.MM.yyyy"))
        #expect(r.out.contains("  user         carol\n  kind         expense\n  amount       1234.56 EUR\n")
                || r.out.contains("  user         carol\n  kind         expense\n  amount       4.50 EUR\n  occurred_at  2025-03-03\n"), "\(r.out)")
        #expect(r.out.hasSuffix("rows: 15 good, 0 bad\n"))
    }

    /// A dry run fits a terminal of 80 columns (its rows were a ten-column table over 150 wide)
    /// and still shows everything: every example file's report, and a file with a long title,
    /// a 120-character word and a long column name, whose values read back whole from the
    /// wrapped lines.
    @Test func dryRunFitsEightyColumns() throws {
        let word = String(repeating: "x", count: 120)
        let title = "Monthly pass for the Helsinki Region Transport zones A B and C bought at the Kamppi service point " + word
        let file = dir.appendingPathComponent("long.csv").path
        try """
            user,amount,currency,occurred_at,title,merchant,a_column_name_longer_than_the_list_allows
            ann,64.70,EUR,2025-03-01,\(title),HSL,9

            """.write(toFile: file, atomically: true, encoding: .utf8)
        let long = try geospend(["import", "expenses", file, "--dry-run", "--map", "category=a_column_name_longer_than_the_list_allows"])
        #expect(long.status == 0, "\(long.err)")
        var reports = [long.out]
        for example in Self.examples {
            let r = try geospend(["import", "expenses"] + example.args + ["--dry-run"])
            #expect(r.status == 0, "\(example.args): \(r.err)")
            reports.append(r.out)
        }
        for (report, args) in zip(reports, [[file]] + Self.examples.map(\.args)) {
            // The first line names the file as given (a long temporary path here).
            let wide: [String] = report.split(separator: "\n").dropFirst().map(String.init).filter { $0.count > 80 }
            #expect(wide.isEmpty, "\(args): \(wide.count) lines over 80 columns: \(wide)")
            #expect(report.contains("\nrow 1\n  id "), "\(args): \(report)")
        }
        // The title's lines, unwrapped: each continuation sits under the value (column 16).
        let lines = long.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("  title        ") })
        var shown = String(lines[start].dropFirst(15))
        for line in lines[(start + 1)...] {
            guard line.hasPrefix(String(repeating: " ", count: 15)) else { break }
            let piece = String(line.dropFirst(15))
            shown += (shown.hasSuffix("x") && piece.hasPrefix("x") ? "" : " ") + piece
        }
        #expect(shown == title)
        #expect(long.out.contains("a_column_name_longer_than_the_list_allows\n                          category"), "\(long.out)")
        #expect(long.out.contains("  merchant     HSL\n  category     9\n"))
    }

    @Test func headerErrorsAreAllReportedWithSuggestions() throws {
        let file = dir.appendingPathComponent("h.csv").path
        try "user,amount,currency,date,lat,lng\nann,1.00,EUR,2025-01-01,60.1,24.9\n".write(toFile: file, atomically: true, encoding: .utf8)
        let db = dir.appendingPathComponent("h.sqlite").path
        let r = try geospend(["import", "expenses", file, "--db", db])
        #expect(r.status == 2)
        #expect(r.err == """
            \(file):1: date: unknown column — did you mean "occurred_at"?
            \(file):1: lng: unknown column — did you mean "lon"?
            \(file):1: occurred_at: required column is missing from the header

            """)
        let semi = try geospend(["import", "expenses", "Data/examples/bank-semicolon.csv", "--user", "carol", "--encoding", "latin1", "--db", db])
        #expect(semi.status == 2)
        #expect(semi.err == "Data/examples/bank-semicolon.csv:1: header: the header looks semicolon-separated: try --delimiter ';'\n")
        let mapped = try geospend(
            ["import", "expenses", "Data/examples/bank-semicolon.csv", "--user", "carol", "--encoding", "latin1", "--delimiter", ";",
             "--currency", "EUR", "--map", "amount=Betrg", "--map", "occurred_at=Buchungstag", "--db", db])
        #expect(mapped.err == "Data/examples/bank-semicolon.csv:1: Betrg: --map amount=Betrg: the header has no such column — did you mean \"Betrag\"?\n"
            + "Data/examples/bank-semicolon.csv:1: amount: no column gives this required field; add --map amount=COLUMN (\"Betrag\" looks like it)\n")
        let field = try geospend(["import", "expenses", file, "--map", "lng=x", "--db", db])
        #expect(field.status == 2 && field.err.contains(#"--map lng=x: "lng" is not a field; did you mean "lon"?"#))
        let zone = try geospend(["import", "expenses", file, "--timezone", "Europe/Helsinky", "--db", db])
        #expect(zone.status == 2 && zone.err.contains("--timezone Europe/Helsinky: not an IANA time zone name"))
    }

    @Test func readingStopsAfterTwentyBadRowsUnlessSkipping() throws {
        var text = "user,amount,currency,occurred_at\n"
        for i in 1...30 { text += "ann,\(i),EUR,2025-02-3\(i % 2)\n" }  // every row dated 30 or 31 February
        text += "ann,1.00,EUR,2025-03-01\n"
        let file = dir.appendingPathComponent("bad.csv").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let db = dir.appendingPathComponent("bad.sqlite").path
        let r = try geospend(["import", "expenses", file, "--db", db])
        #expect(r.status == 2)
        let lines = r.err.split(separator: "\n")
        #expect(lines.count == 22, "\(r.err)")
        #expect(lines.first?.hasPrefix("\(file):2: occurred_at: ") == true)
        #expect(lines[19].hasPrefix("\(file):21: occurred_at: "))
        #expect(lines[20] == "stopped after 20 bad rows; fix these and run again")
        #expect(lines[21] == "import rejected: 20 bad rows, nothing was written (use --skip-invalid to import the good rows)")
        let skip = try geospend(["import", "expenses", file, "--db", db, "--skip-invalid"])
        #expect(skip.status == 0)
        #expect(skip.err.contains("… and 10 more bad rows"))
        #expect(skip.err.contains("imported 1 expenses, 0 already present, 30 bad rows skipped"))
    }

    /// The bank statements of Data/examples (written by hand from the formats' documentation,
    /// Data/README.md says which) through the command: each imports, a second run changes
    /// nothing, and the same statement as OFX 1.x (SGML, Windows-1252) and 2.x (XML) stores
    /// the same expenses.
    static let statements: [(args: [String], imported: Int)] = [
        (["Data/examples/statement-ofx1.ofx", "--preset", "ofx", "--user", "alice"], 14),
        (["Data/examples/statement-ofx2.ofx", "--preset", "ofx", "--user", "alice"], 14),
        (["Data/examples/statement.qif", "--preset", "qif", "--user", "alice", "--currency", "EUR"], 14),
        (["Data/examples/statement-camt053.xml", "--preset", "camt053", "--user", "alice"], 11),
    ]

    @Test(arguments: 0..<statements.count)
    func statementsImportOnce(statement: Int) throws {
        let (args, imported) = Self.statements[statement]
        let db = dir.appendingPathComponent("s\(statement).sqlite").path
        let first = try geospend(["import", "expenses"] + args + ["--db", db])
        #expect(first.status == 0 && first.err.hasPrefix("imported \(imported) expenses, 0 already present"), "\(first.err)")
        let second = try geospend(["import", "expenses"] + args + ["--db", db])
        #expect(second.err.hasPrefix("imported 0 expenses, \(imported) already present"), "\(second.err)")
    }

    @Test func ofxVersionsStoreTheSameExpenses() throws {
        var stored: [[String: [String: String]]] = []
        for (n, args) in [Self.statements[0].args, Self.statements[1].args].enumerated() {
            let db = dir.appendingPathComponent("ofx\(n).sqlite").path
            #expect(try geospend(["import", "expenses"] + args + ["--db", db]).status == 0)
            stored.append(try Self.exported("alice", db: db).mapValues { row in
                row.filter { $0.key != "created_at" && $0.key != "updated_at" }.mapValues { "\($0)" }
            })
        }
        #expect(stored[0].count == 14 && stored[0] == stored[1])
        let cafe = try #require(stored[0].values.first { $0["merchant"] == "Kahvila Säpä" }, "Windows-1252 ä decoded")
        #expect(cafe["kind"] == "expense" && cafe["currency"] == "EUR")
    }

    @Test func qifWithoutCurrencyIsAUsageError() throws {
        let r = try geospend(["import", "expenses", "Data/examples/statement.qif", "--preset", "qif", "--user", "alice",
                              "--db", dir.appendingPathComponent("q.sqlite").path])
        #expect(r.status == 2 && r.err.hasPrefix("Error: --preset qif needs --currency"), "\(r.err)")
    }

    /// The import commands README.md and Data/README.md show for the bank file and the QIF
    /// statement are the ones tested above, word for word: two mappings of one file would give
    /// two sets of derived ids (Data/README.md, "Mapped files"), and QIF needs --currency.
    @Test func documentedImportCommandsAreTheTestedOnes() throws {
        let root = CLITests.repo
        for doc in ["README.md", "Data/README.md"] {
            let text = try String(contentsOf: root.appendingPathComponent(doc), encoding: .utf8)
            for (file, tested) in [("bank-semicolon.csv", ["Data/examples/bank-semicolon.csv"] + Self.bankOptions), ("statement.qif", Self.statements[2].args)] {
                let shown = Self.commands(in: text, file: "Data/examples/" + file)
                #expect(!shown.isEmpty, "\(doc) shows \(file)")
                for args in shown { #expect(args == tested, "\(doc): \(args.joined(separator: " "))") }
            }
        }
    }

    /// The arguments after `geospend import expenses` of each command in `text` importing
    /// `file`: continuation lines joined, a trailing `# comment` or closing backtick dropped.
    static func commands(in text: String, file: String) -> [[String]] {
        var found: [[String]] = []
        let lines = text.components(separatedBy: "\n")
        for (n, line) in lines.enumerated() {
            guard let start = line.range(of: "geospend import expenses " + file) else { continue }
            var command = String(line[start.upperBound...])
            var next = n + 1
            while command.hasSuffix("\\"), next < lines.count {
                command = String(command.dropLast()) + " " + lines[next]
                next += 1
            }
            command = String(command.prefix { $0 != "#" && $0 != "`" })
            found.append([file] + command.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) })
        }
        return found
    }

    /// A known export imported as GeoSpend's own CSV is one line naming its preset, not a
    /// wall of unknown columns.
    @Test(arguments: [
        ("firefly-iii.csv", "firefly-iii"), ("ezbookkeeping.csv", "ezbookkeeping"), ("ezbookkeeping.tsv", "ezbookkeeping"),
        ("statement-ofx1.ofx", "ofx"), ("statement.qif", "qif"), ("statement-camt053.xml", "camt053"),
    ])
    func knownExportsWithoutAPresetNameIt(file: String, preset: String) throws {
        let db = dir.appendingPathComponent("hint.sqlite").path
        let r = try geospend(["import", "expenses", "Data/examples/\(file)", "--user", "alice", "--db", db])
        #expect(r.status == 2)
        #expect(r.err.split(separator: "\n").count == 1 && r.err.contains("add --preset \(preset) --user USER"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}

