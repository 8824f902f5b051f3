import Foundation
import Testing

/// What `import expenses --map` can say beyond field=column (issue 37 §2), through the built
/// binary into a SpatiaLite file: a header below account information (found, or
/// `--skip-lines`), amounts with currency signs and thousands separators, two amount columns,
/// value maps, row filters, joined date and time columns, and the hints for a missing zone and
/// a file in another delimiter.
@Suite(.serialized) final class MappingOptionsTests {
    let dir = Reliability.scratch("mapping")
    deinit { try? FileManager.default.removeItem(at: dir) }

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try Reliability.geospend(args)
    }

    func file(_ name: String, _ text: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func database() -> String { dir.appendingPathComponent("\(UUID().uuidString).sqlite").path }

    /// The command `import expenses --help` shows for Data/examples/card-export.csv.
    static let cardExport = [
        "Data/examples/card-export.csv", "--user", "alice", "--currency", "EUR", "--timezone", "Europe/Helsinki",
        "--map", "occurred_at=Date+Time", "--map", "merchant=Description", "--map", "amount=Amount", "--map", "kind=Type",
        "--where", "State=COMPLETED", "--map-value", "kind:CARD_PAYMENT=expense", "--map-value", "kind:REFUND=income",
        "--map-value", "kind:TOPUP=transfer",
    ]

    @Test func cardExportImportsOnceAndSaysWhichLineWasTheHeader() throws {
        let db = database()
        let first = try geospend(["import", "expenses"] + Self.cardExport + ["--db", db])
        #expect(first.status == 0, "\(first.err)")
        #expect(first.err.contains("card-export.csv: line 4 taken as the header (lines 1–3 skipped"), "\(first.err)")
        #expect(first.err.contains("imported 4 expenses, 0 already present, 2 left out by --where"), "\(first.err)")
        let e = Array(try ImportPresetTests.exported("alice", db: db).values)
        let laptop = try #require(e.first { $0["amount"] as? String == "1234.56" })
        #expect(laptop["kind"] as? String == "expense" && laptop["occurred_at"] as? String == "2025-03-04T12:30:15+02:00")
        let coffee = try #require(e.first { $0["merchant"] as? String == "Robert's Coffee" })
        #expect(coffee["amount"] as? String == "4.50" && coffee["occurred_at"] as? String == "2025-03-03T08:12:00+02:00")
        #expect(e.first { $0["amount"] as? String == "19.90" }?["kind"] as? String == "income")
        #expect(e.first { $0["amount"] as? String == "2000.00" }?["kind"] as? String == "transfer")
        #expect(!e.contains { ["K-Market", "Night Bar"].contains($0["merchant"] as? String) }, "pending and declined rows left out")
        let dry = try geospend(["import", "expenses"] + Self.cardExport + ["--dry-run"])
        #expect(dry.out.contains("Date         occurred_at (joined: Date+Time)\nTime         occurred_at (joined: Date+Time)\n"), "\(dry.out)")
        #expect(dry.out.contains("State        --where\n") && dry.out.contains("  kind: CARD_PAYMENT → expense\n"), "\(dry.out)")
        #expect(dry.out.hasSuffix("rows: 4 good, 0 bad, 2 left out by --where\n"), "\(dry.out)")
        let second = try geospend(["import", "expenses"] + Self.cardExport + ["--db", db])
        #expect(second.err.contains("imported 0 expenses, 4 already present, 2 left out by --where"), "\(second.err)")
    }

    @Test func skipLinesChoosesTheHeader() throws {
        let db = database()
        let r = try geospend(["import", "expenses"] + Self.cardExport + ["--skip-lines", "3", "--db", db])
        #expect(r.status == 0 && !r.err.contains("taken as the header"), "\(r.err)")
        #expect(r.err.contains("imported 4 expenses"), "\(r.err)")
        let early = try geospend(["import", "expenses"] + Self.cardExport + ["--skip-lines", "2", "--db", db])
        #expect(early.status == 2)
        #expect(early.err.contains("card-export.csv:3: Date: --map occurred_at=Date+Time: the header has no such column"), "\(early.err)")
        let negative = try geospend(["import", "expenses"] + Self.cardExport + ["--skip-lines=-1", "--db", db])
        #expect(negative.status == 2 && negative.err.contains("--skip-lines -1: give the number of lines above the header"), "\(negative.err)")
    }

    /// No line holds every mapped column: the line holding most of them is the header, and
    /// the error names the missing one and its nearest match; with none, the first line is.
    @Test func aMissingMappedColumnIsNamedWithItsNearestMatch() throws {
        let path = try file("nohead.csv", "Info,x\nDatum,Betrag\n2025-03-01,-4.50\n")
        let args = ["import", "expenses", path, "--user", "u", "--currency", "EUR", "--map", "occurred_at=Datum", "--db", database()]
        let r = try geospend(args + ["--map", "amount=Betrg"])
        #expect(r.status == 2)
        #expect(r.err.contains("nohead.csv: line 2 taken as the header"), "\(r.err)")
        #expect(r.err.contains("nohead.csv:2: Betrg: --map amount=Betrg: the header has no such column — did you mean \"Betrag\"?"), "\(r.err)")
        let none = try geospend(args.filter { $0 != "occurred_at=Datum" && $0 != "--map" } + ["--map", "occurred_at=When", "--map", "amount=Sum"])
        #expect(none.status == 2 && none.err.contains("nohead.csv:1: When: --map occurred_at=When: the header has no such column"), "\(none.err)")
    }

    @Test func amountsInSeveralLocales() throws {
        let point = try file("point.csv", """
            when,what,amount
            2025-03-01,Coffee,-€4.50
            2025-03-02,Laptop,"-$1,234.50"
            2025-03-03,Watch,-CHF 1'234.50
            2025-03-04,Refund,(12.00)
            2025-03-05,Salary,"3,200.00 EUR"

            """)
        let base = ["--user", "dan", "--currency", "EUR", "--map", "occurred_at=when", "--map", "merchant=what"]
        let db = database()
        let r = try geospend(["import", "expenses", point] + base + ["--db", db])
        #expect(r.status == 0, "\(r.err)")
        let e = try ImportPresetTests.exported("dan", db: db).values
        let read = Dictionary(uniqueKeysWithValues: e.map { ($0["merchant"] as! String, "\($0["kind"]!) \($0["amount"]!)") })
        #expect(read == ["Coffee": "expense 4.50", "Laptop": "expense 1234.50", "Watch": "expense 1234.50",
                         "Refund": "expense 12.00", "Salary": "income 3200.00"])
        let comma = try file("comma.csv", "when;what;amount\n2025-03-01;Kahvi;-4,50 €\n2025-03-02;Läppäri;-1.234,56 €\n2025-03-03;Palkka;1.000 €\n")
        let db2 = database()
        let c = try geospend(["import", "expenses", comma, "--delimiter", ";", "--decimal-comma", "--db", db2] + base)
        #expect(c.status == 0, "\(c.err)")
        let amounts = try ImportPresetTests.exported("dan", db: db2).values.map { $0["amount"] as! String }.sorted()
        #expect(amounts == ["1000.00", "1234.56", "4.50"])
        // The same file without --decimal-comma is refused, naming the option, and writes nothing.
        let db3 = database()
        let bad = try geospend(["import", "expenses", comma, "--delimiter", ";", "--db", db3] + base)
        #expect(bad.status == 2 && !FileManager.default.fileExists(atPath: db3))
        #expect(bad.err.contains("comma.csv:2: amount: \"-4,50 €\" has a comma that does not group thousands; if it is the decimal separator, add --decimal-comma"), "\(bad.err)")
    }

    @Test func outflowAndInflowColumns() throws {
        let path = try file("register.csv", """
            Date,Payee,Outflow,Inflow
            2025-03-01,Grocer,$12.50,$0.00
            2025-03-02,Employer,,"$1,000.00"
            2025-03-03,Shop,-$3.00,

            """)
        let args = ["import", "expenses", path, "--user", "eve", "--currency", "USD", "--map", "occurred_at=Date", "--map", "merchant=Payee",
                    "--map", "outflow=Outflow", "--map", "inflow=Inflow"]
        let db = database()
        let r = try geospend(args + ["--db", db, "--dry-run"])
        #expect(r.out.contains("Outflow  amount of an expense") && r.out.contains("Inflow   amount of an income"), "\(r.out)")
        #expect(try geospend(args + ["--db", db]).status == 0)
        let e = try ImportPresetTests.exported("eve", db: db).values
        let read = Dictionary(uniqueKeysWithValues: e.map { ($0["merchant"] as! String, "\($0["kind"]!) \($0["amount"]!)") })
        #expect(read == ["Grocer": "expense 12.50", "Employer": "income 1000.00", "Shop": "expense 3.00"])
        // A row with both, or neither: the whole file is refused.
        let bad = try file("register-bad.csv", "Date,Payee,Outflow,Inflow\n2025-03-01,A,$1.00,$2.00\n2025-03-02,B,,$0.00\n")
        let db2 = database()
        let refused = try geospend(["import", "expenses", bad] + args.dropFirst(3) + ["--db", db2])
        #expect(refused.status == 2 && !FileManager.default.fileExists(atPath: db2))
        #expect(refused.err.contains("register-bad.csv:2: Outflow: and Inflow both hold an amount"), "\(refused.err)")
        #expect(refused.err.contains("register-bad.csv:3: Outflow: and Inflow are both empty or zero"), "\(refused.err)")
        let both = try geospend(args + ["--map", "amount=Outflow", "--db", db2])
        #expect(both.status == 2 && both.err.contains("--map amount= and --map outflow=/inflow= both give the amount"), "\(both.err)")
    }

    @Test func filtersAndValueMaps() throws {
        let path = try file("states.csv", """
            Started,Kind,What,Amount,State
            2025-03-01,CARD_PAYMENT,A,-1.00,COMPLETED
            2025-03-02,CARD_PAYMENT,B,-2.00,PENDING
            2025-03-03,CARD_PAYMENT,C,-3.00,REVERTED
            2025-03-04,CASHBACK,D,0.50,COMPLETED

            """)
        let base = ["import", "expenses", path, "--user", "fay", "--currency", "EUR", "--map", "occurred_at=Started", "--map", "merchant=What",
                    "--map", "amount=Amount", "--map", "kind=Kind", "--map-value", "kind:CARD_PAYMENT=expense"]
        // CASHBACK has no value map: the error names the option that gives it one.
        let db = database()
        let unmapped = try geospend(base + ["--where", "State!=PENDING", "--db", db])
        #expect(unmapped.status == 2)
        #expect(unmapped.err.contains("states.csv:5: Kind: \"CASHBACK\" is not one of expense, income, transfer; map it, e.g. --map-value kind:CASHBACK=expense"),
                "\(unmapped.err)")
        let mapped = base + ["--map-value", "kind:CASHBACK=income", "--where", "State!=PENDING", "--where", "State!=REVERTED"]
        let r = try geospend(mapped + ["--db", db])
        #expect(r.err.contains("imported 2 expenses, 0 already present, 2 left out by --where"), "\(r.err)")
        let e = try ImportPresetTests.exported("fay", db: db).values
        #expect(Set(e.map { "\($0["merchant"]!) \($0["kind"]!)" }) == ["A expense", "D income"])
        // Two `=` values of one column keep either.
        let either = try geospend(base + ["--map-value", "kind:CASHBACK=income", "--where", "State=COMPLETED", "--where", "State=PENDING", "--db", database()])
        #expect(either.err.contains("imported 3 expenses, 0 already present, 1 left out by --where"), "\(either.err)")
        let typo = try geospend(base + ["--where", "Stat=COMPLETED", "--db", database()])
        #expect(typo.status == 2 && typo.err.contains("Stat: --where Stat=COMPLETED: the header has no such column — did you mean \"State\"?"), "\(typo.err)")
        let malformed = try geospend(base + ["--map-value", "CARD_PAYMENT=expense", "--db", database()])
        #expect(malformed.status == 2 && malformed.err.contains("write FIELD:VALUE=STORED"), "\(malformed.err)")
    }

    @Test func joinedDateAndTimeNeedAZone() throws {
        let path = try file("split-time.csv", "Date,Time,Amount\n05.03.2025,08:15,-4.50\n")
        let base = ["import", "expenses", path, "--user", "gus", "--currency", "EUR", "--map", "occurred_at=Date+Time", "--map", "amount=Amount",
                    "--date-format", "dd.MM.yyyy HH:mm"]
        let noZone = try geospend(base + ["--db", database()])
        #expect(noZone.status == 2)
        #expect(noZone.err.contains("split-time.csv:2: Date+Time: \"05.03.2025 08:15\" has no UTC offset; give the zone the times are in with --timezone"),
                "\(noZone.err)")
        let db = database()
        #expect(try geospend(base + ["--timezone", "Europe/Berlin", "--db", db]).status == 0)
        #expect(try ImportPresetTests.exported("gus", db: db).values.first?["occurred_at"] as? String == "2025-03-05T08:15:00+01:00")
    }

    @Test(arguments: [false, true])
    func quotedSemicolonFileGetsTheDelimiterHint(mapped: Bool) throws {
        let path = try file("quoted.csv", "\"Datum\";\"Betrag\"\n\"01.03.2025\";\"-4,50\"\n")
        let map = mapped ? ["--map", "occurred_at=Datum", "--map", "amount=Betrag"] : []
        let r = try geospend(["import", "expenses", path, "--user", "u", "--currency", "EUR", "--db", database()] + map)
        #expect(r.status == 2)
        #expect(r.err.contains("quoted.csv:1: header: has a semicolon after a closing quote: the file looks semicolon-separated; try --delimiter ';'"),
                "\(r.err)")
        #expect(!r.err.contains("text after a closing quote"))
        // `import stores` has no --delimiter: the hint says what to do instead.
        let stores = try geospend(["import", "stores", path, "--db", database()])
        #expect(stores.status == 2 && stores.err.contains("looks semicolon-separated; write it comma-separated"), "\(stores.err)")
    }

    /// The help lists the new options, and its card-export command is the one tested above.
    @Test func helpShowsTheOptionsAndTheTestedExample() throws {
        let help = try geospend(["import", "expenses", "--help"]).out
        for option in ["--map-value <FIELD:VALUE=STORED>", "--where <COLUMN=VALUE>", "--skip-lines <N>", "outflow=COL"] {
            #expect(help.contains(option), "\(option)")
        }
        let shown = ImportPresetTests.commands(in: help.replacingOccurrences(of: "\\\n    ", with: ""), file: "Data/examples/card-export.csv")
        #expect(shown == [Self.cardExport], "\(shown)")
        for doc in ["Data/README.md"] {
            let text = try String(contentsOf: CLITests.repo.appendingPathComponent(doc), encoding: .utf8)
            let documented = ImportPresetTests.commands(in: text, file: "Data/examples/card-export.csv")
            #expect(documented == [Self.cardExport], "\(doc): \(documented)")
        }
    }
}
