import Foundation
import Testing

/// Every user's raw positions go out only when asked for by name, and an empty points layer says
/// why (issue 15, "The first hour"). The built binary on the sample data (Data/sample-expenses.csv:
/// EUR, JPY, KWD, SEK and USD, no CHF).
@Suite(.serialized) struct RawPositionsTests {
    let cli = CLITests()

    @Test(arguments: [
        ["export", "points", "--all-users"],
        ["export", "points", "--all-users", "--format", "csv"],
        ["export", "leaflet-heat", "--all-users"],
        ["export", "bundle", "--all-users", "--out", "BUNDLE"],
    ])
    func everyUsersRawPositionsAreRefusedUnlessAllowed(args: [String]) throws {
        let db = try cli.demoDatabase()
        let bundle = cli.dir.appendingPathComponent("map").path
        let args = args.map { $0 == "BUNDLE" ? bundle : $0 } + ["--db", db]
        let refused = try cli.geospend(args)
        #expect(refused.status == 2, "\(args): \(refused.err)")
        #expect(refused.err.contains("raw positions") && refused.err.contains("--allow-raw-positions"), "\(refused.err)")
        #expect(refused.err.contains("export grid --all-users") && refused.err.contains("export density --all-users"), "\(refused.err)")
        #expect(refused.out.isEmpty && !FileManager.default.fileExists(atPath: bundle))
        let allowed = try cli.geospend(args + ["--allow-raw-positions"])
        #expect(allowed.status == 0, "\(args): \(allowed.err)")
        // Allowed, the positions are there: an empty layer would pass a check for "some output".
        let text = allowed.out.isEmpty ? try String(contentsOfFile: bundle + "/points.geojson", encoding: .utf8) : allowed.out
        #expect(try Self.positions(text) > 0, "\(args): \(text.prefix(200))")
    }

    /// How many positions an export holds: GeoJSON features, leaflet-heat's `[lat, lon, weight]`
    /// triples, or CSV rows below the header.
    static func positions(_ text: String) throws -> Int {
        guard text.hasPrefix("{") || text.hasPrefix("[") else { return text.split(separator: "\n").count - 1 }
        let json = try JSONSerialization.jsonObject(with: Data(text.utf8))
        if let array = json as? [Any] { return array.count }
        return try #require((json as? [String: Any])?["features"] as? [Any]).count
    }

    @Test(arguments: [
        ["export", "points", "--user", "user1", "--allow-raw-positions"],  // one user's own positions need no leave
        ["export", "grid", "--all-users", "--allow-raw-positions"],  // aggregated: nothing to allow
    ])
    func allowingRawPositionsWhereThereAreNoneIsBadUsage(args: [String]) throws {
        let db = try cli.demoDatabase()
        let r = try cli.geospend(args + ["--db", db])
        #expect(r.status == 2 && r.err.contains("--allow-raw-positions is for"), "\(r.err)")
    }

    /// Asked for a currency none of the selection has, each point format is a valid empty layer
    /// (exit 0) and stderr says so, naming what there is. Before: every currency, weights in minor units.
    @Test(arguments: [["--format", "geojson"], ["--format", "csv"], ["leaflet-heat"]])
    func anAbsentCurrencyGivesAnEmptyLayerAndANote(variant: [String]) throws {
        let db = try cli.demoDatabase()
        let layer = variant == ["leaflet-heat"] ? ["leaflet-heat"] : ["points"] + variant
        let r = try cli.geospend(["export"] + layer + ["--user", "user1", "--currency", "CHF", "--db", db])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.contains("note: the layer is empty: no geotagged expense in CHF matches the filters; the selection has EUR"), "\(r.err)")
        switch variant {
        case ["--format", "csv"]:
            #expect(r.out == "id,latitude,longitude,amount,currency,kind,occurred_at,category,merchant,store_id,weight,position_source\n")
        case ["leaflet-heat"]:
            #expect(r.out == "[]\n")
        default:
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
            #expect(json["type"] as? String == "FeatureCollection" && (json["features"] as? [Any])?.isEmpty == true)
        }
    }
}
