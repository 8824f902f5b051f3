import Foundation
import GeoSpendTestSupport
import Testing

/// `make demo`'s database (scripts/demo-database.sh) is rich enough that a cross-user store
/// report publishes under the default --min-users 3 — what the README's example and the
/// notebooks show — and `generate --popular` leaves the generator's other output as it was.
@Suite(.serialized) final class DemoDataTests {
    let dir = Reliability.scratch("demo")
    deinit { try? FileManager.default.removeItem(at: dir) }

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try Reliability.geospend(args)
    }

    /// Without --popular the generator's bytes are those Data/README.md documents for
    /// Data/sample-expenses.csv (the tests' small data); an unknown --popular id is exit 2.
    @Test func popularLeavesTheSampleAsItWas() throws {
        let sample = try String(contentsOf: CLITests.repo.appendingPathComponent("Data/sample-expenses.csv"), encoding: .utf8)
        let r = try geospend(["generate", "--users", "20", "--expenses", "2000", "--seed", "7"])
        #expect(r.status == 0 && r.out == sample, "\(r.err)")
        let unknown = try geospend(["generate", "--popular", "no-such-place", "--out", dir.appendingPathComponent("x.csv").path])
        #expect(unknown.status == 2 && unknown.err.contains("--popular no-such-place"), "\(unknown.err)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.csv").path))
    }

    /// The demo's two popular stores: every month and every weekday × hour cell of their opening
    /// hours published from 3+ users (S-Market Sokos: 8–22 h, 98 of 168 cells).
    @Test func demoStoreReportsPublishEveryMonthAndMostHours() throws {
        let db = dir.appendingPathComponent("demo.sqlite").path
        let built = try runProgram("/bin/bash", ["scripts/demo-database.sh", CLITests.binary, db], directory: CLITests.repo)
        #expect(built.status == 0, "\(built.err)")
        for (id, openCells) in [("288130404", 7 * 14), ("317766538", 7 * 12)] {
            let r = try geospend(["report", "store", id, "--db", db, "--format", "json"])
            #expect(r.status == 0, "\(r.err)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
            #expect(json["min_users"] as? Int == 3)
            let sections = try #require(json["currencies"] as? [[String: Any]])
            let eur = try #require(sections.first { $0["currency"] as? String == "EUR" })
            let months = try #require(eur["monthly"] as? [[String: Any]])
            #expect(months.count == 12 && months.allSatisfy { $0["total"] is String }, "\(id): \(months)")
            let grid = try #require(eur["weekday_hour"] as? [[Any]])
            let published = grid.joined().filter { !($0 is NSNull) }.count
            #expect(published == openCells, "\(id): \(published) cells published")
        }
    }
}
