import Foundation
import Testing

/// `geospend import stores` with the GPX and OpenStreetMap GeoJSON examples, through the built
/// binary: counts on stderr, a second import changes nothing, the stores are queryable.
@Suite struct StoreImportCLITests {
    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try Reliability.geospend(args)
    }

    @Test func gpxAndOSMGeoJSONImportOnce() throws {
        let dir = Reliability.scratch("stores")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("stores.sqlite").path
        let first = try geospend(["import", "stores", "Data/examples/places.gpx", "--db", db])
        #expect(first.status == 0, "\(first.err)")
        #expect(first.err.contains("imported 6 stores, 0 already present"))
        let again = try geospend(["import", "stores", "Data/examples/places.gpx", "--db", db])
        #expect(again.err.contains("imported 0 stores, 6 already present"))
        let osm = try geospend(["import", "stores", "Data/examples/osm-places.geojson", "--db", db])
        #expect(osm.status == 0, "\(osm.err)")
        #expect(osm.err.contains("imported 7 stores, 0 already present"))
        // The shopping centre drawn as a U is found next to its point on surface.
        let near = try geospend(["nearest-stores", "--db", db, "--lat", "60.1695", "--lon", "24.9396", "-k", "1", "--format", "json"])
        #expect(near.status == 0, "\(near.err)")
        #expect(near.out.contains("Kauppakeskus Forum"))
        let expenses = try geospend(["import", "expenses", "Data/examples/places.gpx", "--db", db])
        #expect(expenses.status != 0 && expenses.err.contains("not GPX"))
    }
}
