import Foundation
import Testing

/// The bank and app presets of issue 37 (`revolut`, `n26`, `monzo`, `wise`, `dkb`, `ing`,
/// `sparkasse`, `mt940`, `ynab`, `actual`, `monzo-api`) through the built binary into a SpatiaLite file: each imports its
/// example from Data/examples and a second file written independently
/// (Tests/Fixtures/presets: other currencies, pending rows, fees, refunds, identical rows, a
/// quoted delimiter, another encoding), a second import changes nothing, and the stored rows
/// read back as the export means them.
@Suite(.serialized) final class BankPresetTests {
    let dir = Reliability.scratch("bank-presets")
    deinit { try? FileManager.default.removeItem(at: dir) }

    static let fixtures = "Tests/Fixtures/presets/"

    /// Each file: its arguments, the expenses it stores and the rows the preset leaves out.
    static let files: [(args: [String], imported: Int, leftOut: Int)] = [
        (["Data/examples/revolut.csv", "--preset", "revolut", "--user", "alice", "--timezone", "Europe/Helsinki"], 10, 3),
        ([fixtures + "revolut-sek.csv", "--preset", "revolut", "--user", "alice", "--timezone", "Europe/Stockholm"], 6, 2),
        (["Data/examples/n26.csv", "--preset", "n26", "--user", "alice"], 8, 0),
        ([fixtures + "n26-second.csv", "--preset", "n26", "--user", "bob"], 5, 0),
        (["Data/examples/monzo.csv", "--preset", "monzo", "--user", "alice"], 7, 0),
        ([fixtures + "monzo-second.csv", "--preset", "monzo", "--user", "bob"], 4, 0),
        (["Data/examples/wise.csv", "--preset", "wise", "--user", "alice"], 6, 0),
        ([fixtures + "wise-sek.csv", "--preset", "wise", "--user", "alice"], 3, 0),
        (["Data/examples/dkb.csv", "--preset", "dkb", "--user", "alice"], 4, 1),
        ([fixtures + "dkb-second.csv", "--preset", "dkb", "--user", "bob"], 3, 1),
        (["Data/examples/ing.csv", "--preset", "ing", "--user", "alice"], 5, 0),
        ([fixtures + "ing-second.csv", "--preset", "ing", "--user", "bob"], 2, 0),
        (["Data/examples/sparkasse.csv", "--preset", "sparkasse", "--user", "alice"], 3, 1),
        ([fixtures + "sparkasse-second.csv", "--preset", "sparkasse", "--user", "bob"], 3, 0),
        (["Data/examples/statement.sta", "--preset", "mt940", "--user", "alice"], 5, 0),
        ([fixtures + "mt940-second.mt940", "--preset", "mt940", "--user", "bob"], 4, 0),
        (["Data/examples/ynab-register.csv", "--preset", "ynab", "--user", "alice", "--currency", "USD", "--date-format", "MM/dd/yyyy"], 7, 1),
        ([fixtures + "ynab-euro.csv", "--preset", "ynab", "--user", "bob", "--currency", "EUR", "--date-format", "dd.MM.yyyy"], 3, 1),
        (["Data/examples/actual.csv", "--preset", "actual", "--user", "alice", "--currency", "EUR"], 6, 0),
        ([fixtures + "actual-second.csv", "--preset", "actual", "--user", "bob", "--currency", "EUR"], 4, 0),
        (["Data/examples/monzo-api.json", "--preset", "monzo-api", "--user", "alice"], 5, 0),
        ([fixtures + "monzo-api-second.json", "--preset", "monzo-api", "--user", "bob"], 4, 0),
    ]

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try Reliability.geospend(args)
    }

    @Test(arguments: 0..<files.count)
    func importsOnceAndASecondImportChangesNothing(file: Int) throws {
        let (args, imported, leftOut) = Self.files[file]
        let db = dir.appendingPathComponent("f\(file).sqlite").path
        let outLeft = leftOut > 0 ? ", \(leftOut) left out by the preset" : ""
        let first = try geospend(["import", "expenses"] + args + ["--db", db])
        #expect(first.status == 0, "\(args[0]): \(first.err)")
        #expect(first.err.hasPrefix("imported \(imported) expenses, 0 already present\(outLeft) ("), "\(args[0]): \(first.err)")
        let second = try geospend(["import", "expenses"] + args + ["--db", db])
        #expect(second.err.hasPrefix("imported 0 expenses, \(imported) already present\(outLeft) ("), "\(args[0]): \(second.err)")
    }

    /// A dry run of each file counts what the import stores, writes nothing, and fits 80 columns.
    @Test(arguments: 0..<files.count)
    func dryRunCountsTheRecords(file: Int) throws {
        let (args, imported, leftOut) = Self.files[file]
        let db = dir.appendingPathComponent("dry\(file).sqlite").path
        let r = try geospend(["import", "expenses"] + args + ["--db", db, "--dry-run"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasSuffix("rows: \(imported) good, 0 bad\(leftOut > 0 ? ", \(leftOut) left out by the preset" : "")\n"), "\(r.out)")
        let wide = r.out.components(separatedBy: "\n").dropFirst().filter { $0.count > 80 }
        #expect(wide.isEmpty, "\(wide)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    /// The stored expenses of `user` after importing `files[n]` (for each n) into one new file.
    func stored(_ user: String, _ n: Int...) throws -> [String: [String: Any]] {
        let db = dir.appendingPathComponent("v\(UUID().uuidString).sqlite").path
        for i in n {
            let r = try geospend(["import", "expenses"] + Self.files[i].args + ["--db", db])
            #expect(r.status == 0, "\(r.err)")
        }
        return try ImportPresetTests.exported(user, db: db)
    }

    /// The one stored expense whose `key` is `value`.
    func one(_ e: [String: [String: Any]], _ key: String, _ value: String) throws -> [String: Any] {
        let found = e.values.filter { $0[key] as? String == value }
        try #require(found.count == 1, "\(found.count) expenses with \(key) \(value)")
        return found[0]
    }

    func text(_ row: [String: Any], _ keys: String...) -> [String] { keys.map { row[$0] as? String ?? "-" } }

    func absent(_ row: [String: Any], _ key: String) -> Bool { row[key] == nil || row[key] is NSNull }

    @Test func revolut() throws {
        let e = try stored("alice", 0)
        #expect(e.count == 10 && e.keys.allSatisfy { $0.hasPrefix("h") }, "derived ids: \(e.keys.sorted())")
        let coffee = try one(e, "merchant", "Robert's Coffee")
        #expect(text(coffee, "kind", "amount", "currency", "occurred_at") == ["expense", "4.50", "EUR", "2025-03-03T08:12:40+02:00"])
        #expect(text(try one(e, "title", "Top-Up by *4821"), "kind", "amount") == ["transfer", "200.00"])
        #expect(text(try one(e, "title", "Exchanged to SEK"), "kind", "amount") == ["transfer", "50.00"])
        #expect(text(try one(e, "title", "To Savings"), "kind", "occurred_at") == ["transfer", "2025-03-31T20:00:00+03:00"])
        #expect(text(try one(e, "title", "Stockmann"), "kind", "amount") == ["income", "19.90"], "the refund; the declined row is left out")
        // A quoted description with a comma, on the first day of summer time.
        #expect(text(try one(e, "merchant", "Fazer Café, Kluuvikatu"), "amount", "occurred_at") == ["7.80", "2025-03-30T10:15:00+03:00"])
        // Fees: their own expenses, without the purchase's merchant.
        let fees = e.values.filter { $0["title"] as? String == "Revolut fee" }
        #expect(Set(fees.map { text($0, "amount", "kind", "notes") }) == [
            ["1.20", "expense", "fee on Cash at Otto Kamppi"], ["0.25", "expense", "fee on Exchanged to SEK"],
        ])
        #expect(fees.allSatisfy { absent($0, "merchant") })
        #expect(!e.values.contains { ["Ravintola Savoy", "HSL"].contains($0["title"] as? String) }, "pending and reverted rows")
        let sek = try stored("alice", 1)
        let press = sek.values.filter { $0["merchant"] as? String == "Pressbyrån, Centralstationen" }
        #expect(press.count == 2 && press.allSatisfy { text($0, "amount", "currency", "occurred_at") == ["42.00", "SEK", "2025-06-02T12:04:33+02:00"] })
        #expect(sek.keys.filter { $0.hasSuffix("-1") }.count == 1, "two identical purchases: the second id numbered")
        #expect(text(try one(sek, "title", "Revolut fee"), "amount", "currency") == ["6.50", "SEK"])
    }

    @Test func n26() throws {
        let e = try stored("alice", 2)
        #expect(text(try one(e, "title", "Acme GmbH"), "kind", "amount", "currency", "occurred_at", "notes")
                == ["income", "2850.00", "EUR", "2025-03-01", "Income\nGehalt März"])
        let pret = try one(e, "merchant", "Pret A Manger")
        #expect(text(pret, "kind", "amount", "occurred_at", "notes") == ["expense", "8.79", "2025-03-10", "Presentment\npaid 7.35 GBP"])
        #expect(text(try one(e, "merchant", "Erika Mustermann"), "amount", "notes") == ["780.00", "Outgoing Transfer\nMiete, April"])
        #expect(e.values.filter { $0["merchant"] as? String == "Robert's Coffee" }.count == 2)
        let refunds = e.values.filter { $0["title"] as? String == "Lidl Dienstleistung" && $0["kind"] as? String == "income" }
        #expect(refunds.count == 1 && absent(refunds[0], "merchant"), "a refund is money in, without a merchant")
        let second = try stored("bob", 3)
        #expect(second.values.filter { $0["merchant"] as? String == "Coop Genossenschaft" }.count == 2, "identical rows stay two")
        #expect(text(try one(second, "title", "Max Mustermann"), "kind", "amount", "notes")
                == ["income", "18.50", "MoneyBeam\nPizza, Getränke \"Da Toni\""])
    }

    @Test func monzo() throws {
        let e = try stored("alice", 4)
        #expect(e.count == 7 && e["alice/monzo/tx_0000AbCdEf0000000000000001"] != nil)
        let pret = try #require(e["alice/monzo/tx_0000AbCdEf0000000000000002"])
        #expect(text(pret, "kind", "amount", "currency", "occurred_at", "merchant", "category", "notes")
                == ["expense", "3.95", "GBP", "2025-03-03T08:12:40Z", "Pret A Manger", "Eating out", "#breakfast"], "\(pret)")
        // Pots are the user's own money: transfers both ways.
        #expect(text(try #require(e["alice/monzo/tx_0000AbCdEf0000000000000004"]), "kind", "amount") == ["transfer", "150.00"])
        #expect(text(try #require(e["alice/monzo/tx_0000AbCdEf0000000000000007"]), "kind", "amount") == ["transfer", "50.00"])
        let fazer = try #require(e["alice/monzo/tx_0000AbCdEf0000000000000005"])
        #expect(text(fazer, "amount", "currency", "notes") == ["6.11", "GBP", "Helsinki trip\npaid 7.20 EUR"])
        // British Summer Time from 30 March 2025.
        #expect(text(try #require(e["alice/monzo/tx_0000AbCdEf0000000000000006"]), "occurred_at") == ["2025-03-30T12:00:00+01:00"])
        let salary = try #require(e["alice/monzo/tx_0000AbCdEf0000000000000001"])
        #expect(text(salary, "kind", "title") == ["income", "Acme Ltd"] && absent(salary, "merchant"))
        let bob = try stored("bob", 5)
        // 00:30 on the night summer time ends is still +01:00; an empty Name falls back to Description.
        #expect(text(try #require(bob["bob/monzo/tx_0000ZyXw00000000000000000a"]), "occurred_at", "notes")
                == ["2025-10-26T00:30:00+01:00", "late, again"])
        #expect(text(try #require(bob["bob/monzo/tx_0000ZyXw00000000000000000b"]), "merchant", "occurred_at")
                == ["AMZNMKTPLACE", "2025-10-27T13:05:10Z"])
        #expect(text(try #require(bob["bob/monzo/tx_0000ZyXw00000000000000000c"]), "kind", "amount") == ["income", "19.99"])
    }

    @Test func wise() throws {
        let e = try stored("alice", 6, 7)
        #expect(e.count == 9, "both balances' statements, the conversion once in each currency")
        #expect(text(try #require(e["alice/wise/BALANCE-998877661/EUR"]), "kind", "amount", "title", "notes")
                == ["transfer", "100.00", "Converted 100.00 EUR to 1119.02 SEK", "fees 0.41 EUR included"])
        #expect(text(try #require(e["alice/wise/BALANCE-998877661/SEK"]), "kind", "amount", "currency") == ["transfer", "1119.02", "SEK"])
        let coffee = try #require(e["alice/wise/CARD-2389917711/EUR"])
        #expect(text(coffee, "kind", "amount", "occurred_at", "merchant") == ["expense", "4.50", "2025-03-03", "Roberts Coffee"])
        let rent = try #require(e["alice/wise/TRANSFER-1209981120/EUR"])
        #expect(text(rent, "merchant", "amount", "notes")
                == ["Kiinteistö Oy Esimerkki", "750.55", "Sent money to Kiinteistö Oy Esimerkki\nVuokra maaliskuu\nfees 0.55 EUR included"])
        #expect(text(try #require(e["alice/wise/TRANSFER-1204418822/EUR"]), "kind", "title") == ["income", "Acme Oy"])
        #expect(text(try #require(e["alice/wise/CARD-2401122334/EUR"]), "kind", "amount") == ["income", "12.90"])
        let fika = try #require(e["alice/wise/CARD-2402233445/SEK"])
        #expect(text(fika, "merchant", "amount", "currency") == ["Espresso House, Drottninggatan", "89.00", "SEK"])
        #expect((fika["notes"] as? String)?.hasSuffix("fika with Bob") == true)
        #expect(text(try #require(e["alice/wise/CARD-2402233446/SEK"]), "amount") == ["1.50"])
    }

    @Test func dkb() throws {
        let e = try stored("alice", 8)
        #expect(e.count == 4 && !e.values.contains { $0["merchant"] as? String == "REWE Markt GmbH" }, "the pending row is left out")
        let power = try one(e, "merchant", "Stadtwerke München GmbH")
        #expect(text(power, "kind", "amount", "currency", "occurred_at", "notes")
                == ["expense", "1234.56", "EUR", "2025-03-25", "Abschlag Strom; Vertrag 4711"])
        #expect(text(try one(e, "title", "Acme GmbH"), "kind", "amount", "occurred_at") == ["income", "3120.00", "2025-03-28"])
        #expect(text(try one(e, "merchant", "Café Luitpold"), "amount") == ["12.80"])
        #expect(text(try one(e, "title", "dm-drogerie markt"), "kind", "amount") == ["income", "4.95"])
        let bob = try stored("bob", 9)
        #expect(bob.values.filter { $0["merchant"] as? String == "Edeka Südbayern" && $0["amount"] as? String == "20.45" }.count == 2)
        #expect(text(try one(bob, "merchant", "Netflix International B.V."), "occurred_at") == ["2025-11-01"])
    }

    @Test func ing() throws {
        let e = try stored("alice", 10)
        #expect(text(try one(e, "merchant", "Bäckerei Rischart"), "amount", "occurred_at", "notes")
                == ["6.40", "2025-03-31", "Lastschrift\nKartenzahlung girocard"], "Latin-1 read without --encoding")
        #expect(text(try one(e, "merchant", "Hausverwaltung Süd GmbH"), "amount") == ["1100.00"])
        #expect(text(try one(e, "merchant", "ALDI SUED"), "notes") == ["Lastschrift\nALDI SUED; Filiale 123"])
        #expect(text(try one(e, "title", "Acme GmbH"), "kind", "amount") == ["income", "2950.00"])
        #expect(text(try one(e, "title", "Zinsen"), "kind", "amount") == ["income", "0.07"])
        let bob = try stored("bob", 11)
        #expect(text(try one(bob, "merchant", "Müller Drogeriemarkt"), "amount", "occurred_at") == ["12345.67", "2025-10-26"])
    }

    @Test func sparkasse() throws {
        let e = try stored("alice", 12)
        #expect(e.count == 3 && !e.values.contains { $0["merchant"] as? String == "EDEKA Hieber" }, "vorgemerkt left out")
        #expect(text(try one(e, "merchant", "Bäckerei Zöller"), "amount", "occurred_at", "notes")
                == ["5.60", "2025-03-05", "KARTENZAHLUNG\n2025-03-04T12:01 Debitk.1 2027-12"], "Windows-1252 read")
        #expect(text(try one(e, "title", "Acme GmbH"), "kind", "amount") == ["income", "2740.00"])
        #expect(text(try one(e, "merchant", "FitX Deutschland GmbH"), "notes") == ["FOLGELASTSCHRIFT\nBeitrag Fitnessstudio; Maerz"])
        let bob = try stored("bob", 13)
        #expect(text(try one(bob, "merchant", "Bob Example"), "amount", "notes")
                == ["50.00", "ONLINE-UEBERWEISUNG\nGeschenk \"Oma\"; danke für alles"], "UTF-8 read as UTF-8")
        #expect(text(try one(bob, "title", "ENTGELTABSCHLUSS"), "kind", "amount", "occurred_at") == ["expense", "7.50", "2025-11-02"])
        #expect(text(try one(bob, "title", "Deutsche Bahn AG"), "kind", "amount") == ["income", "1029.90"])
    }

    @Test func mt940() throws {
        let e = try stored("alice", 14)
        #expect(e.count == 5 && e.keys.allSatisfy { $0.hasPrefix("h") })
        let coffee = try one(e, "merchant", "Roberts Coffee Frankfurt")
        #expect(text(coffee, "kind", "amount", "currency", "occurred_at", "notes")
                == ["expense", "4.50", "EUR", "2025-03-03", "KARTENZAHLUNG\nSVWZ+2025-03-03T08:12 Debitk.1 2027-12"])
        // ?32 and ?33 continue one name; the field goes on over its lines.
        let power = try one(e, "merchant", "Stadtwerke Frankfurt am Main GmbH")
        #expect(text(power, "amount", "occurred_at") == ["1234.56", "2025-03-05"])
        #expect((power["notes"] as? String)?.contains("CRED+DE98ZZZ09999999999") == true, "\(power)")
        #expect(text(try one(e, "title", "Acme GmbH"), "kind", "amount") == ["income", "2950.00"])
        #expect(text(try one(e, "merchant", "Café Luitpold"), "amount", "occurred_at") == ["12.80", "2025-03-31"], "second statement, Windows-1252")
        #expect(text(try one(e, "title", "Gutschrift dm-drogerie markt Rueckgabe"), "kind", "amount", "occurred_at") == ["income", "4.95", "2025-04-01"])
        let bob = try stored("bob", 15)
        #expect(text(try one(bob, "merchant", "Netflix International B.V."), "amount", "occurred_at") == ["19.99", "2025-12-30"])
        let kiosk = bob.values.filter { $0["merchant"] as? String == "Kiosk am Markt" }.map { text($0, "amount", "occurred_at") }
        // Booked on 2 January for a value date of 31 December; a reversed credit is money out.
        #expect(Set(kiosk) == [["5.40", "2026-01-02"], ["3.00", "2025-12-31"], ["5.40", "2025-12-31"]])
    }

    @Test func ynab() throws {
        let e = try stored("alice", 16)
        #expect(e.count == 7 && !e.values.contains { $0["title"] as? String == "Starting Balance" }, "the opening balance is left out")
        #expect(text(try one(e, "title", "Acme Inc."), "kind", "amount", "currency", "occurred_at") == ["income", "3200.00", "USD", "2025-03-01"])
        #expect(text(try one(e, "merchant", "Blue Bottle Coffee"), "amount", "category", "occurred_at") == ["4.50", "Eating out", "2025-03-03"])
        // A split: each part its own expense with its category.
        let target = e.values.filter { $0["merchant"] as? String == "Target" }.map { text($0, "amount", "category", "notes") }
        #expect(Set(target) == [["42.17", "Groceries", "Split (1/2) food"], ["12.99", "Household", "Split (2/2) detergent, sponges"]])
        #expect(text(try one(e, "title", "Transfer : Savings"), "kind", "amount", "category") == ["transfer", "200.00", "-"])
        #expect(text(try one(e, "notes", "returned"), "kind", "amount", "title") == ["income", "8.49", "Target"])
        #expect(text(try one(e, "merchant", "Landlord LLC"), "amount") == ["1450.00"])
        let bob = try stored("bob", 17)
        #expect(bob.values.filter { text($0, "merchant", "amount", "occurred_at") == ["REWE", "23.45", "2025-10-26"] }.count == 2)
        #expect(text(try one(bob, "merchant", "Deutsche Bahn"), "amount", "currency", "notes") == ["1234.00", "EUR", "BahnCard, 2. Klasse"])
        // Grouping and decimals by the currency's minor digits: ¥1,234 is 1234 yen, KWD 1.250 is 1.250.
        for (currency, outflow, stored) in [("JPY", "¥1,234", "1234"), ("KWD", "KWD 1.250", "1.250"), ("EUR", "1.234,5 €", "1234.50")] {
            let file = dir.appendingPathComponent("ynab-\(currency).csv").path
            try """
                "Account","Flag","Date","Payee","Category Group/Category","Category Group","Category","Memo","Outflow","Inflow","Cleared"
                "Cash","","2025-04-02","Kiosk","","","","","\(outflow)","","Cleared"

                """.write(toFile: file, atomically: true, encoding: .utf8)
            let db = dir.appendingPathComponent("ynab-\(currency).sqlite").path
            let r = try geospend(["import", "expenses", file, "--preset", "ynab", "--user", "c", "--currency", currency, "--db", db])
            #expect(r.status == 0, "\(r.err)")
            let row = try #require(try ImportPresetTests.exported("c", db: db).values.first)
            #expect(text(row, "amount", "currency", "occurred_at") == [stored, currency, "2025-04-02"])
        }
        // Without --date-format a date that is not ISO is named, with the option that reads it.
        let db = dir.appendingPathComponent("ynab-nodate.sqlite").path
        let r = try geospend(["import", "expenses", "Data/examples/ynab-register.csv", "--preset", "ynab", "--user", "a", "--currency", "USD", "--db", db])
        #expect(r.status == 2 && r.err.hasPrefix("Data/examples/ynab-register.csv:3: Date: \"03/01/2025\" is in the budget's date format; give it with --date-format"), "\(r.err)")
        let noCurrency = try geospend(["import", "expenses", "Data/examples/actual.csv", "--preset", "actual", "--user", "a", "--db", db])
        #expect(noCurrency.status == 2 && noCurrency.err.hasPrefix("Error: --preset actual needs --currency"), "\(noCurrency.err)")
    }

    @Test func actual() throws {
        let e = try stored("alice", 18)
        #expect(text(try one(e, "title", "Acme Oy"), "kind", "amount", "currency", "category") == ["income", "2800.00", "EUR", "Income"])
        #expect(text(try one(e, "merchant", "K-Market Kamppi"), "amount", "occurred_at", "notes") == ["23.87", "2025-03-04", "milk, bread"])
        #expect(text(try one(e, "title", "Transfer: Savings"), "kind", "amount") == ["transfer", "300.00"])
        #expect(text(try one(e, "title", "Transfer: Checking"), "kind", "amount") == ["transfer", "300.00"])
        let bob = try stored("bob", 19)
        #expect(text(try one(bob, "merchant", "Stockmann, Helsinki"), "amount", "notes") == ["89.90", "gift"])
        #expect(text(try one(bob, "notes", "refund"), "kind", "title") == ["income", "Stockmann, Helsinki"])
        #expect(bob.values.filter { $0["merchant"] as? String == "Alko" }.count == 2)
    }

    @Test func monzoAPI() throws {
        let e = try stored("alice", 20)
        #expect(e.count == 5 && e["alice/monzo/tx_00009AbCdEfGhIjKlMnOp05"] == nil, "the declined payment is skipped")
        let pret = try #require(e["alice/monzo/tx_00009AbCdEfGhIjKlMnOp01"])
        #expect(text(pret, "kind", "amount", "currency", "occurred_at", "merchant", "category", "notes")
                == ["expense", "3.95", "GBP", "2025-03-03T08:12:40.311Z", "Pret A Manger", "eating_out", "#breakfast"])
        #expect(pret["lat"] as? Double == 51.5145 && pret["lon"] as? Double == -0.0994, "the merchant's position")
        let amazon = try #require(e["alice/monzo/tx_00009AbCdEfGhIjKlMnOp02"])
        #expect(text(amazon, "merchant", "amount") == ["Amazon", "27.41"] && absent(amazon, "lat"), "an online merchant's address is no position")
        #expect(text(try #require(e["alice/monzo/tx_00009AbCdEfGhIjKlMnOp03"]), "kind", "amount") == ["transfer", "150.00"])
        let fazer = try #require(e["alice/monzo/tx_00009AbCdEfGhIjKlMnOp04"])
        #expect(text(fazer, "amount", "notes") == ["6.11", "Helsinki trip\npaid 7.20 EUR"] && fazer["lat"] as? Double == 60.1692)
        let salary = try #require(e["alice/monzo/tx_00009AbCdEfGhIjKlMnOp06"])
        #expect(text(salary, "kind", "amount", "title") == ["income", "2100.00", "Acme Ltd"] && absent(salary, "merchant"))
        let bob = try stored("bob", 21)
        #expect(text(try #require(bob["bob/monzo/tx_00009ZyXw00000000000000a"]), "kind", "amount") == ["transfer", "50.00"], "a top-up")
        let sushi = try #require(bob["bob/monzo/tx_00009ZyXw00000000000000b"])
        #expect(text(sushi, "amount", "currency", "occurred_at", "notes") == ["1200", "JPY", "2025-10-27T13:05:10.5Z", "lunch, \"omakase\""])
        #expect(sushi["lat"] as? Double == 35.6655 && sushi["lon"] as? Double == 139.7707)
        #expect(text(try #require(bob["bob/monzo/tx_00009ZyXw00000000000000c"]), "kind", "amount") == ["transfer", "25.00"], "from a pot")
        let refund = try #require(bob["bob/monzo/tx_00009ZyXw00000000000000d"])
        #expect(text(refund, "kind", "amount", "title") == ["income", "19.99", "ASOS"] && absent(refund, "lat"))
        // A bad amount is named at the line of its transaction's id.
        let bad = dir.appendingPathComponent("monzo-bad.json").path
        try "{\"transactions\": [\n{\"id\": \"tx_00001\", \"created\": \"2025-01-01T00:00:00Z\",\n \"amount\": -4.5, \"currency\": \"GBP\"}]}\n"
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try geospend(["import", "expenses", bad, "--preset", "monzo-api", "--user", "a", "--db", dir.appendingPathComponent("mb.sqlite").path])
        #expect(r.status == 2 && r.err.hasPrefix("\(bad):2: amount: is not a whole number of minor units (pence, cents) like -770\n"), "\(r.err)")
    }

    /// The import commands Data/README.md shows for these examples are the tested ones, word
    /// for word (and `import expenses --help`'s Revolut example too).
    @Test func documentedCommandsAreTheTestedOnes() throws {
        let text = try String(contentsOf: CLITests.repo.appendingPathComponent("Data/README.md"), encoding: .utf8)
        for n in [0, 8, 14, 16, 20] {
            let args = Self.files[n].args
            let shown = ImportPresetTests.commands(in: text, file: args[0])
            #expect(shown == [args], "Data/README.md shows \(shown) for \(args[0])")
        }
        let help = try geospend(["import", "expenses", "--help"]).out
        let revolut = ImportPresetTests.commands(in: help.replacingOccurrences(of: "\\\n    ", with: ""), file: "Data/examples/revolut.csv")
        #expect(revolut == [Self.files[0].args], "\(revolut)")
    }

    /// Files of these formats imported without `--preset` are one line naming it.
    @Test(arguments: [
        ("Data/examples/revolut.csv", "revolut --user USER --timezone ZONE"), ("Data/examples/n26.csv", "n26 --user USER"),
        ("Data/examples/monzo.csv", "monzo --user USER"), ("Data/examples/wise.csv", "wise --user USER"),
        ("Data/examples/dkb.csv", "dkb --user USER"), ("Data/examples/ing.csv", "ing --user USER"),
        ("Data/examples/sparkasse.csv", "sparkasse --user USER"), ("Data/examples/statement.sta", "mt940 --user USER"),
        ("Data/examples/ynab-register.csv", "ynab --user USER --currency CODE"),
        ("Data/examples/actual.csv", "actual --user USER --currency CODE"),
        ("Data/examples/monzo-api.json", "monzo-api --user USER"),
    ])
    func withoutThePresetTheErrorNamesIt(file: String, preset: String) throws {
        let db = dir.appendingPathComponent("hint.sqlite").path
        let r = try geospend(["import", "expenses", file, "--db", db])
        #expect(r.status == 2 && r.err.hasPrefix("\(file):1: file: looks like ") && r.err.hasSuffix(": add --preset \(preset)\n")
                && r.err.split(separator: "\n").count == 1, "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    /// Bad input is named by file, line, column and reason.
    @Test func badRowsAndMissingOptionsAreNamed() throws {
        let db = dir.appendingPathComponent("bad.sqlite").path
        let noZone = try geospend(["import", "expenses", "Data/examples/revolut.csv", "--preset", "revolut", "--user", "alice", "--db", db])
        #expect(noZone.status == 2)
        #expect(noZone.err == "Data/examples/revolut.csv:1: Started Date: revolut exports write local times without offset; give --timezone (e.g. Europe/Berlin)\n")

        let revolut = dir.appendingPathComponent("revolut-bad.csv").path
        try """
            Type,Product,Started Date,Completed Date,Description,Amount,Fee,Currency,State,Balance
            CARD_PAYMENT,Current,2025-03-03 08:12:40,,Kiosk,-4.5.0,0.00,EUR,COMPLETED,1
            CARD_PAYMENT,Current,03.03.2025 08:12,,Kiosk,-4.50,0.00,EUR,COMPLETED,1

            """.write(toFile: revolut, atomically: true, encoding: .utf8)
        let rows = try geospend(["import", "expenses", revolut, "--preset", "revolut", "--user", "a", "--timezone", "UTC", "--db", db])
        let lines = rows.err.split(separator: "\n").map(String.init)
        #expect(rows.status == 2 && lines.count == 3, "\(rows.err)")
        #expect(lines.first?.hasPrefix("\(revolut):2: Amount: \"-4.5.0\" is not a number like -1234.50") == true, "\(rows.err)")
        #expect(lines.dropFirst().first?.hasPrefix("\(revolut):3: \"Started Date\": \"03.03.2025 08:12\" does not match the date format yyyy-MM-dd HH:mm:ss") == true, "\(rows.err)")

        let sta = dir.appendingPathComponent("bad.sta").path
        try ":20:X\n:25:Y\n:60F:C250101EUR1,00\n:61:250102D12.50NMSCNONREF\n:86:?00A\n:61:2501X\n".write(toFile: sta, atomically: true, encoding: .utf8)
        let mt = try geospend(["import", "expenses", sta, "--preset", "mt940", "--user", "a", "--db", db])
        let mtLines = mt.err.split(separator: "\n").map(String.init)
        #expect(mt.status == 2 && mtLines.count == 3, "\(mt.err)")
        #expect(mtLines.first == "\(sta):4: field 61: \"250102D12.50NMSCNONREF\" has no amount with a decimal comma (like 12,50) after the debit/credit mark")
        #expect(mtLines.dropFirst().first == "\(sta):6: field 61: \"2501X\" does not start with the value date YYMMDD")

        let noHeader = dir.appendingPathComponent("dkb-no-header.csv").path
        try "\"Girokonto\";\"DE07\"\n\"Buchungstag\";\"Betrag\"\n".write(toFile: noHeader, atomically: true, encoding: .utf8)
        let dkb = try geospend(["import", "expenses", noHeader, "--preset", "dkb", "--user", "a", "--db", db])
        #expect(dkb.status == 2 && dkb.err == "\(noHeader):1: header: no line holds the header of a dkb export (Buchungsdatum, Zahlungsempfänger*in, Betrag (€))\n", "\(dkb.err)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}
