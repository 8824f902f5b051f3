import Foundation
import GeoSpend
import GeoSpendService
import GeoSpendSpatiaLite
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 35, item 16: an expense `DELETE` no longer rewrites the whole file. Its row is zeroed at
/// once and the rewrite (`VACUUM`) runs once for a burst of deletions (`BatchedRewrite`), after
/// which no byte of any deleted row is left in the file or its log.
@Suite(.serialized) struct BatchedRewriteTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    /// 30 expenses with a marker title and a coordinate of their own, imported for alice.
    func importMarked(_ client: any TestClientProtocol, token: String) async throws -> [(id: String, title: String, lat: Double, lon: Double)] {
        var rows: [(id: String, title: String, lat: Double, lon: Double)] = []
        for n in 0..<30 {
            // Seven decimals, all different: each coordinate's bytes occur once in the file.
            let lat = Double(String(format: "%.7f", 60.1612345 + Double(n) * 0.0001113))!
            let lon = Double(String(format: "%.7f", 24.9312345 + Double(n) * 0.0002117))!
            rows.append(("bw\(n)", "BatchMarker\(n)Q", lat, lon))
        }
        let csv = "id,kind,amount,currency,occurred_at,title,category,merchant,lat,lon\n"
            + rows.map { "\($0.id),expense,\(3 + $0.title.count).50,EUR,2025-06-0\(1 + $0.id.count % 5),\($0.title),Food,,\(String(format: "%.7f", $0.lat)),\(String(format: "%.7f", $0.lon))" }
                .joined(separator: "\n") + "\n"
        let r = try await client.call("/api/v1/import/expenses?format=csv", token: token, method: .post, body: csv)
        try #require(r.status == .ok && r.body.contains("\"inserted\": 30"), "\(r.body)")
        return rows
    }

    /// The title and the coordinates as doubles (a REAL column, a geometry). Not the R*Tree's
    /// floats: at about 0.4 m per step, other expenses of the sample data share them
    /// (`RTreeScrub`'s own tests scan for those).
    func traces(of row: (id: String, title: String, lat: Double, lon: Double), in bytes: [UInt8]) -> [String] {
        var found: [String] = []
        if !bytes.offsets(of: Array(row.title.utf8)).isEmpty { found.append("title") }
        for (name, v) in [("lat", row.lat), ("lon", row.lon)] {
            for (form, b) in coordinateByteForms(v) where form != "R*Tree" && !bytes.offsets(of: b).isEmpty { found.append("\(name) \(form)") }
        }
        return found
    }

    @Test func aBurstOfDeletionsSharesOneRewriteAndLeavesNoTrace() async throws {
        let store = try f.store()
        // A delay no test waits for: `finish()` runs the rewrite, as when the service stops.
        let rewrites = BatchedRewrite(store: store, delay: .seconds(3600))
        let app = Application(router: buildRouter(store: store, timeLimit: ServiceFixture.patient, rewrites: rewrites), logger: ServiceFixture.quiet)
        let token = try #require(f.tokens["aliceWrite"])
        let (rows, answers) = try await app.test(.router) { client in
            let rows = try await importMarked(client, token: token)
            var answers: [Answer] = []
            for row in rows.prefix(20) {
                answers.append(try await client.call("/api/v1/expenses/\(row.id)", token: token, method: .delete))
            }
            return (rows, answers)
        }
        for a in answers {
            #expect(a.status == .ok && a.body.contains("rewritten (VACUUM) within 3600 s"), "\(a.body)")
        }
        // Not rewritten per deletion: the rewrite is still owed, none has run.
        #expect(try store.pendingScrubSince() != nil)
        #expect(await rewrites.runs == 0)
        let files = [f.db, f.db + "-wal"]
        let before = try bytesOfFiles(files)
        #expect(traces(of: rows[25], in: before).count == 5, "\(traces(of: rows[25], in: before)): the scan finds a kept row's title and coordinates")

        await rewrites.finish()
        #expect(await rewrites.runs == 1)
        #expect(try store.pendingScrubSince() == nil)
        let after = try bytesOfFiles(files)
        for row in rows.prefix(20) { #expect(traces(of: row, in: after) == [], "\(row.id)") }
        for row in rows.suffix(10) { #expect(traces(of: row, in: after).count == 5, "\(row.id) is kept: \(traces(of: row, in: after))") }
        #expect(try store.checkHealth().isHealthy)
    }

    @Test func theRewriteRunsByItselfAfterTheDelay() async throws {
        let store = try f.store()
        let rewrites = BatchedRewrite(store: store, delay: .milliseconds(200))
        let app = Application(router: buildRouter(store: store, timeLimit: ServiceFixture.patient, rewrites: rewrites), logger: ServiceFixture.quiet)
        let token = try #require(f.tokens["aliceWrite"])
        let rows = try await app.test(.router) { client in
            let rows = try await importMarked(client, token: token)
            let a = try await client.call("/api/v1/expenses/\(rows[0].id)", token: token, method: .delete)
            #expect(a.status == .ok, "\(a.body)")
            return rows
        }
        let deadline = ContinuousClock.now + .seconds(120)  // a loaded machine; it takes well under a second alone
        while await rewrites.runs == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(await rewrites.runs == 1)
        #expect(try store.pendingScrubSince() == nil)
        #expect(traces(of: rows[0], in: try bytesOfFiles([f.db, f.db + "-wal"])) == [])
    }

    /// A deletion owed from before a start (a killed service, `--no-vacuum`) is rewritten after it.
    @Test func aRewriteOwedAtStartRuns() async throws {
        let store = try f.store()
        let id = try #require(try await store.expensePage(ExpenseFilter(userID: ServiceFixture.alice), after: nil, limit: 1).expenses.first?.expense.id)
        #expect(try await store.deleteExpense(id: id, userID: ServiceFixture.alice, rewrite: .skipped) != nil)
        #expect(try store.pendingScrubSince() != nil)
        let rewrites = BatchedRewrite(store: store, delay: .seconds(3600))
        await rewrites.start()
        await rewrites.finish()
        #expect(await rewrites.runs == 1)
        #expect(try store.pendingScrubSince() == nil)
        // Nothing owed: nothing runs.
        let idle = BatchedRewrite(store: store, delay: .seconds(3600))
        await idle.start()
        await idle.finish()
        #expect(await idle.runs == 0)
    }
}
