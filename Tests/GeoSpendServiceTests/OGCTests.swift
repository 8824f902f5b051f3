import Foundation
import GeoSpend
import GeoSpendService
import GeoSpendSpatiaLite
import Hummingbird
import HummingbirdTesting
import Testing

/// OGC API Features (OGC 17-069r4, https://docs.ogc.org/is/17-069r4/17-069r4.html) on expenses
/// written for these tests: 25 on the antimeridian near Fiji (lon ±179.95, one a day from
/// 2025-01-01) and one at lon 10 (2025-06-01), all of user "fiji".
@Suite(.serialized) struct OGCTests {
    let f: ServiceFixture
    let db: String
    let token: String

    init() throws {
        f = try ServiceFixture()
        var rows = ["id,user,kind,amount,currency,occurred_at,title,category,merchant,lat,lon,accuracy_m,store_id,notes"]
        for n in 1...25 {
            let lon = n % 2 == 0 ? "179.95" : "-179.95"
            rows.append("f\(n),fiji,expense,\(n).00,EUR,2025-01-\(String(format: "%02d", n))T12:00:00Z,Kava,Food,Market,-17.8,\(lon),10,,")
        }
        rows.append("f26,fiji,expense,5.00,EUR,2025-06-01T12:00:00Z,Bread,Food,Bakery,-17.8,10.0,10,,")
        let csv = f.dir.appendingPathComponent("fiji.csv")
        try (rows.joined(separator: "\n") + "\n").write(to: csv, atomically: true, encoding: .utf8)
        db = f.dir.appendingPathComponent("fiji.sqlite").path
        let r = try f.geospend(["import", "expenses", csv.path, "--db", db])
        guard r.status == 0 else { throw ServiceFixture.FixtureError(message: r.err) }
        let t = try f.geospend(["tokens", "create", "--user", "fiji", "--db", db])
        token = String(t.out.split(separator: "\n").last ?? "")
    }

    func get(_ uri: String) async throws -> (status: HTTPResponse.Status, json: [String: Any], body: String) {
        let app = Application(router: buildRouter(store: try SpatiaLiteStore(path: db), timeLimit: ServiceFixture.patient), logger: ServiceFixture.quiet)
        let a = try await app.test(.router) { try await $0.call(uri, token: token) }
        let json = (try? JSONSerialization.jsonObject(with: Data(a.body.utf8)) as? [String: Any]) ?? [:]
        return (a.status, json, a.body)
    }

    func ids(_ json: [String: Any]) -> [String] {
        ((json["features"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
    }

    @Test func landingConformanceAndCollections() async throws {
        let landing = try await get("/ogc")
        let rels = ((landing.json["links"] as? [[String: Any]]) ?? []).compactMap { $0["rel"] as? String }
        #expect(Set(rels).isSuperset(of: ["self", "service-desc", "conformance", "data"]))
        let conformance = try await get("/ogc/conformance")
        #expect((conformance.json["conformsTo"] as? [String])?.contains("http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core") == true)
        #expect((conformance.json["conformsTo"] as? [String])?.contains("http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson") == true)
        let collections = try await get("/ogc/collections")
        let list = (collections.json["collections"] as? [[String: Any]]) ?? []
        #expect(list.compactMap { $0["id"] as? String } == ["expenses", "places", "hex", "density", "stores"])
        for c in list {
            let rels = ((c["links"] as? [[String: Any]]) ?? []).compactMap { $0["rel"] as? String }
            #expect(rels.contains("items"))
        }
        #expect(try await get("/ogc/collections/roads").status == .notFound)
    }

    @Test func aBoxAcrossTheAntimeridianHoldsBothSides() async throws {
        let across = try await get("/ogc/collections/expenses/items?limit=100&bbox=179.9,-18,-179.9,-17")
        #expect(across.status == .ok)
        #expect(Set(ids(across.json)) == Set((1...25).map { "f\($0)" }))
        #expect(across.json["numberMatched"] as? Int == 25)
        let east = try await get("/ogc/collections/expenses/items?limit=100&bbox=179.9,-18,180,-17")
        #expect(Set(ids(east.json)) == Set(stride(from: 2, through: 24, by: 2).map { "f\($0)" }))
        let tenth = try await get("/ogc/collections/expenses/items?bbox=9,-18,11,-17")
        #expect(ids(tenth.json) == ["f26"])
        let bad = try await get("/ogc/collections/expenses/items?bbox=1,2,3")
        #expect(bad.status == .badRequest)
        #expect(bad.body.contains("west,south,east,north"))
    }

    @Test func datetimeInstantsAndOpenIntervals() async throws {
        let instant = try await get("/ogc/collections/expenses/items?datetime=2025-01-07T12:00:00Z")
        #expect(ids(instant.json) == ["f7"])
        let upTo = try await get("/ogc/collections/expenses/items?limit=100&datetime=../2025-01-03T12:00:00Z")
        #expect(Set(ids(upTo.json)) == ["f1", "f2", "f3"])
        let from = try await get("/ogc/collections/expenses/items?limit=100&datetime=2025-01-24T12:00:00Z/..")
        #expect(Set(ids(from.json)) == ["f24", "f25", "f26"])
        let closed = try await get("/ogc/collections/expenses/items?limit=100&datetime=2025-01-10T00:00:00Z/2025-01-11T23:00:00Z")
        #expect(Set(ids(closed.json)) == ["f10", "f11"])
        let backwards = try await get("/ogc/collections/expenses/items?datetime=2025-02-01T00:00:00Z/2025-01-01T00:00:00Z")
        #expect(backwards.status == .badRequest)
    }

    @Test func pagesOfTenByDefaultUpToTenThousandWithNextLinks() async throws {
        let first = try await get("/ogc/collections/expenses/items")
        #expect(first.json["numberMatched"] as? Int == 26)
        #expect(first.json["numberReturned"] as? Int == 10)
        var seen = ids(first.json)
        var next = Self.next(first.json)
        while let uri = next {
            let page = try await get(uri)
            seen += ids(page.json)
            next = Self.next(page.json)
        }
        #expect(seen.count == 26 && Set(seen).count == 26)
        let big = try await get("/ogc/collections/expenses/items?limit=20000")
        #expect(big.status == .ok && big.json["numberReturned"] as? Int == 26 && Self.next(big.json) == nil)
        #expect(try await get("/ogc/collections/expenses/items?limit=0").status == .badRequest)
        let one = try await get("/ogc/collections/expenses/items/f7")
        #expect(one.status == .ok && one.json["id"] as? String == "f7")
        #expect(try await get("/ogc/collections/expenses/items/nope").status == .notFound)
    }

    /// The `next` link's path and query (the host is the test client's).
    static func next(_ json: [String: Any]) -> String? {
        guard let href = ((json["links"] as? [[String: Any]]) ?? []).first(where: { $0["rel"] as? String == "next" })?["href"] as? String,
              let url = URL(string: href) else { return nil }
        return url.path + "?" + (url.query ?? "")
    }
}
