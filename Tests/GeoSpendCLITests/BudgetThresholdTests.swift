import Foundation
import GeoSpendTestSupport
import Testing

/// `budgets add|edit --thresholds` through the built binary (issue 39): sorted and once each,
/// shown by `list` (table and JSON) and `summary`, exported by `users export`; bad lists refused
/// with exit 2 naming the value, nothing saved.
extension BudgetTests {
    @Test func thresholdsAreCheckedShownAndExported() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic)
        let b = try add(db, "ann", ["--name", "March", "--amount", "100.00", "--from", "2025-03-01", "--to", "2025-03-31", "--thresholds", "100, 50,80,50"])
        #expect(b["thresholds"] as? [Int] == [50, 80, 100], "\(b)")
        let plain = try add(db, "ann", ["--name", "Food", "--amount", "10.00", "--from", "2025-03-01", "--to", "2025-03-31", "--category", "Food"])
        #expect(plain["thresholds"] as? [Int] == [80, 100], "the default")
        let table = try geospend(["budgets", "list", "--db", db, "--user", "ann"])
        #expect(table.status == 0 && table.out.contains("thresholds") && table.out.contains("50,80,100") && table.out.contains("80,100"), "\(table.out)")
        let summary = try geospend(["budgets", "summary", "--db", db, "--user", "ann", "--id", "1", "--as-of", "2025-03-05"])
        #expect(summary.out.contains("thresholds") && summary.out.contains("50 %, 80 %, 100 %"), "\(summary.out)")

        let common = ["--db", db, "--user", "ann", "--name", "X", "--currency", "EUR", "--amount", "5", "--from", "2025-04-01", "--to", "2025-04-30"]
        for (value, reason) in [
            ("0", "0 is not a whole percentage from 1 to 1000"), ("1001", "1001 is not a whole percentage"),
            ("80,abc", "\"abc\" is not a whole percentage"), ("80,,100", "\"\" is not a whole percentage"), ("-5", "\"-5\" is not"),
            ("+80", "\"+80\" is not"), ("99999999999999999999", "is not a whole percentage"), ("1,2,3,4,5,6,7,8,9,10,11", "give at most 10"),
        ] {
            let r = try geospend(["budgets", "add"] + common + ["--thresholds=\(value)"])
            #expect(r.status == 2 && r.err.contains("--thresholds") && r.err.contains(reason), "\(value): \(r.status) \(r.err)")
        }
        let edited = try geospend(["budgets", "edit", "--db", db, "--user", "ann", "--id", "1", "--thresholds", "90", "--format", "json"])
        let editedJSON = try #require(try json(edited) as? [String: Any])
        #expect(editedJSON["thresholds"] as? [Int] == [90])
        let refused = try geospend(["budgets", "edit", "--db", db, "--user", "ann", "--id", "1", "--thresholds", "5000"])
        #expect(refused.status == 2 && refused.err.contains("5000"), "\(refused.err)")
        #expect(try listed(db, "ann", all: true).map { $0["thresholds"] as? [Int] ?? [] } == [[80, 100], [90]], "nothing refused was saved")

        let export = try geospend(["users", "export", "ann", "--db", db])
        #expect(export.status == 0 && export.out.contains(#""thresholds":[90]"#) && export.out.contains(#""thresholds":[80,100]"#), "\(export.out.prefix(2000))")
    }
}
