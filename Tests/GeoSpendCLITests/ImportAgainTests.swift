import Foundation
import Testing

/// One statement (5 transactions of one EUR account, two of them equal coffees) written in every
/// format `geospend import expenses` reads (Tests/Fixtures/same-statement, written from each
/// format's example: GeoSpend's CSV and JSON Lines, a bank CSV read with --map, the 12 app and
/// bank presets, OFX, QIF, camt.053, MT940): after the OFX, every other format's five rows are
/// recognised and left out, and the other way round; --allow-duplicates keeps them.
/// Then `--update` through the binary: the refusal names it, the report lists what changed,
/// and `doctor` finds the rollups equal to a recomputation.
@Suite(.serialized) final class ImportAgainTests {
    let dir = Reliability.scratch("import-again")
    deinit { try? FileManager.default.removeItem(at: dir) }

    static let fixtures = "Tests/Fixtures/same-statement/"
    static let ofx = [fixtures + "statement.ofx", "--preset", "ofx", "--user", "alice"]
    static let others: [[String]] = [
        [fixtures + "geospend.csv"],
        [fixtures + "geospend.jsonl"],
        [fixtures + "mapped.csv", "--user", "alice", "--delimiter", ";", "--decimal-comma", "--date-format", "dd.MM.yyyy",
         "--currency", "EUR", "--map", "occurred_at=Buchungstag", "--map", "amount=Betrag", "--map", "merchant=Empfaenger",
         "--map", "title=Verwendungszweck"],
        [fixtures + "firefly-iii.csv", "--preset", "firefly-iii", "--user", "alice"],
        [fixtures + "ezbookkeeping.csv", "--preset", "ezbookkeeping", "--user", "alice"],
        [fixtures + "revolut.csv", "--preset", "revolut", "--user", "alice", "--timezone", "Europe/Berlin"],
        [fixtures + "n26.csv", "--preset", "n26", "--user", "alice"],
        [fixtures + "monzo.csv", "--preset", "monzo", "--user", "alice"],
        [fixtures + "monzo-api.json", "--preset", "monzo-api", "--user", "alice"],
        [fixtures + "wise.csv", "--preset", "wise", "--user", "alice"],
        [fixtures + "ynab.csv", "--preset", "ynab", "--user", "alice", "--currency", "EUR", "--date-format", "MM/dd/yyyy"],
        [fixtures + "actual.csv", "--preset", "actual", "--user", "alice", "--currency", "EUR"],
        [fixtures + "dkb.csv", "--preset", "dkb", "--user", "alice"],
        [fixtures + "ing.csv", "--preset", "ing", "--user", "alice"],
        [fixtures + "sparkasse.csv", "--preset", "sparkasse", "--user", "alice"],
        [fixtures + "statement.qif", "--preset", "qif", "--user", "alice", "--currency", "EUR", "--date-format", "dd.MM.yyyy"],
        [fixtures + "statement-camt053.xml", "--preset", "camt053", "--user", "alice"],
        [fixtures + "statement.mt940", "--preset", "mt940", "--user", "alice"],
    ]

    func importing(_ args: [String], _ db: String, _ extra: [String] = []) throws -> String {
        let r = try Reliability.geospend(["import", "expenses"] + args + extra + ["--db", db])
        #expect(r.status == 0, "\(args[0]): \(r.err)")
        return r.err
    }

    static func last(_ err: String) -> String { err.split(separator: "\n").last.map(String.init) ?? "" }

    @Test(arguments: 0..<others.count)
    func sameStatementInAnotherFormatIsLeftOut(format: Int) throws {
        let args = Self.others[format]
        let db = dir.appendingPathComponent("f\(format).sqlite").path
        #expect(Self.last(try importing(Self.ofx, db)).hasPrefix("imported 5 expenses, 0 already present ("))
        let second = try importing(args, db)
        #expect(Self.last(second).hasPrefix("imported 0 expenses, 0 already present, 5 duplicates left out ("), "\(args[0]): \(second)")
        #expect(second.contains("left out: the same transaction is stored as \"alice/ofx/"), "\(second)")
        #expect(second.contains("(--allow-duplicates imports them too)"))
        if format == 0 {  // (on every store: ImportAgainContractTests)
            #expect(Self.last(try importing(args, db, ["--allow-duplicates"])).hasPrefix("imported 5 expenses, 0 already present ("))
        }

        // The other way round: the format first, then the OFX.
        let reverse = dir.appendingPathComponent("r\(format).sqlite").path
        #expect(Self.last(try importing(args, reverse)).hasPrefix("imported 5 expenses"))
        let ofx = try importing(Self.ofx, reverse)
        #expect(Self.last(ofx).hasPrefix("imported 0 expenses, 0 already present, 5 duplicates left out ("), "\(args[0]): \(ofx)")
    }

    @Test func updateThroughTheBinary() throws {
        let db = dir.appendingPathComponent("update.sqlite").path
        let header = "id,user,amount,currency,occurred_at,title,merchant,lat,lon\n"
        let a = dir.appendingPathComponent("a.csv").path, b = dir.appendingPathComponent("b.csv").path
        try (header + "e1,ann,4.50,EUR,2025-04-01T08:12:00+03:00,Coffee,Roberts Coffee,60.17,24.94\ne2,ann,9.00,EUR,2025-04-02,Lunch,Sapa,60.18,24.95\n")
            .write(toFile: a, atomically: true, encoding: .utf8)
        try (header + "e1,ann,4.80,EUR,2025-04-01T08:12:00+03:00,Coffee,Roberts Coffee,60.1705,24.9405\ne2,ann,9.00,EUR,2025-04-02,Lunch,Sapa,60.18,24.95\n")
            .write(toFile: b, atomically: true, encoding: .utf8)
        _ = try importing([a], db)
        let refused = try Reliability.geospend(["import", "expenses", b, "--db", db])
        #expect(refused.status != 0)
        #expect(refused.err.contains("b.csv:2: id: \"e1\" is already stored with different content; to replace the stored row import with --update"), "\(refused.err)")
        let updated = try importing([b], db, ["--update"])
        #expect(updated.contains("updated: e1\n"), "\(updated)")
        #expect(Self.last(updated).hasPrefix("imported 0 expenses, 1 already present, 1 updated ("), "\(updated)")
        let doctor = try Reliability.geospend(["doctor", "--db", db])
        #expect(doctor.status == 0 && doctor.out.contains("equal to a recomputation from the expenses"), "\(doctor.out)\(doctor.err)")
        let list = try Reliability.geospend(["expenses", "list", "--user", "ann", "--db", db])
        #expect(list.out.contains("4.80"))
    }
}
