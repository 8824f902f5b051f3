import Foundation
import GeoSpend
import GeoSpendService
import Hummingbird
import HummingbirdTesting
import Testing

/// `POST /api/v1/import/expenses`: the CLI's importer behind a write token, all or nothing,
/// bad rows reported with line and column. Bodies written here in the import format of
/// docs/IMPORT.md (CSV header as Data/sample-expenses.csv; JSON Lines keys the same).
@Suite(.serialized) struct ImportRouteTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    static let header = "id,kind,amount,currency,occurred_at,title,category,merchant,lat,lon"

    func count() throws -> Int {
        let out = try f.geospend(["expenses", "list", "--user", ServiceFixture.alice, "--limit", "1000", "--format", "json", "--db", f.db]).out
        return out.components(separatedBy: "\n      \"id\": ").count - 1
    }

    func post(_ body: String, format: String = "csv", token: String? = nil, more: String = "") async throws -> Answer {
        let t = token ?? f.tokens["aliceWrite"]!
        return try await f.withClient { try await $0.call("/api/v1/import/expenses?format=\(format)\(more)", token: t, method: .post, body: body) }
    }

    @Test func goodRowsAreTheTokenUsers() async throws {
        let before = try count()
        let csv = Self.header + "\nw1,expense,3.50,EUR,2025-05-01T10:00:00+03:00,Coffee,Food,Cafe,60.17,24.94\nw2,expense,7.00,EUR,2025-05-02,Lunch,Food,,,\n"
        let a = try await post(csv)
        #expect(a.status == .ok, "\(a.body)")
        #expect(a.body.contains("\"inserted\": 2"))
        #expect(try count() == before + 2)
        let jsonl = #"{"id":"w3","user":"user4","amount":"1.25","currency":"EUR","occurred_at":"2025-05-03"}"# + "\n"
        let b = try await post(jsonl, format: "jsonl")
        #expect(b.status == .ok, "\(b.body)")
        #expect(try count() == before + 3)
        let again = try await post(csv)
        #expect(again.body.contains("\"unchanged\": 2"))
    }

    /// `update=true` rewrites a changed row (the refusal without it names the parameter);
    /// the same transaction under another id is left out and listed unless `allow-duplicates=true`.
    @Test func updateAndDuplicates() async throws {
        let first = Self.header + "\nu1,expense,4.50,EUR,2025-06-01T08:00:00+03:00,Coffee,Food,Roberts Coffee,,\n"
        #expect(try await post(first).status == .ok)
        let changed = Self.header + "\nu1,expense,4.80,EUR,2025-06-01T08:00:00+03:00,Coffee,Food,Roberts Coffee,,\n"
        let refused = try await post(changed)
        #expect(refused.status == .badRequest && refused.body.contains("update=true over HTTP"), "\(refused.body)")
        let updated = try await post(changed, more: "&update=true")
        #expect(updated.status == .ok && updated.body.contains("\"updated\": 1") && updated.body.contains("\"u1\""), "\(updated.body)")
        let twin = Self.header + "\nu2,expense,4.80,EUR,2025-06-01,Card purchase,,ROBERTS COFFEE,,\n"
        let left = try await post(twin)
        #expect(left.status == .ok && left.body.contains("\"duplicates_left_out\": 1") && left.body.contains("\"stored_id\": \"u1\""), "\(left.body)")
        let kept = try await post(twin, more: "&allow-duplicates=true")
        #expect(kept.body.contains("\"inserted\": 1"), "\(kept.body)")
    }

    @Test func aBadRowImportsNothingAndSaysWhere() async throws {
        let before = try count()
        let csv = Self.header + "\nw1,expense,3.50,EUR,2025-05-01,Coffee,Food,,,\nw2,expense,3,5O,EUR,2025-05-02,Tea,Food,,,\n"
        let a = try await post(csv)
        #expect(a.status == .badRequest)
        #expect(a.headers[.contentType] == "application/problem+json")
        #expect(a.body.contains("\"line\": \"3\""), "\(a.body)")
        #expect(a.body.contains("nothing was imported (add skip-invalid=true"), "\(a.body)")  // not the CLI's --skip-invalid, and said once
        #expect(!a.body.contains("geospend-import-"))  // the temporary file is never named
        #expect(try count() == before)
        let skipped = try await post(csv, more: "&skip-invalid=true")
        #expect(skipped.status == .ok && skipped.body.contains("\"inserted\": 1") && skipped.body.contains("\"rejected\": 1"), "\(skipped.body)")
    }

    @Test func anotherUsersRowIsRefused() async throws {
        let before = try count()
        let csv = "id,user,amount,currency,occurred_at\nw1,\(ServiceFixture.alice),1.00,EUR,2025-05-01\nw2,\(ServiceFixture.bob),2.00,EUR,2025-05-01\n"
        let a = try await post(csv)
        #expect(a.status == .badRequest)
        #expect(a.body.contains("\"line\": \"3\"") && a.body.contains("\"column\": \"user\""), "\(a.body)")
        #expect(try count() == before)
        let bobs = try f.geospend(["expenses", "show", "w2", "--user", ServiceFixture.bob, "--db", f.db])
        #expect(bobs.status != 0)
    }

    @Test func aReadTokenMayNotImportAndBadFormatsAre400() async throws {
        let read = try await post(Self.header + "\n", token: f.tokens["alice"]!)
        #expect(read.status == .forbidden)
        let badFormat = try await post("x", format: "xlsx")
        #expect(badFormat.status == .badRequest && badFormat.body.contains("not csv or jsonl"))
    }

    @Test func aBodyOverTheLimitIs413() async throws {
        let big = String(repeating: "x", count: (64 << 20) + 1)
        let a = try await post(big)
        #expect(a.status == .contentTooLarge)
        #expect(a.headers[.contentType] == "application/problem+json")
    }
}
