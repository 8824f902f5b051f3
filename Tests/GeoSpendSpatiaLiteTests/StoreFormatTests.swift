import Foundation
import GeoSpendTestSupport
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// Store inputs beyond CSV and GeoJSON points (issue 15): GPX waypoints, GeoJSON features without
/// ids, OpenStreetMap tags, and polygons placed at their point on surface, imported into real
/// SpatiaLite stores from Data/examples/places.gpx and osm-places.geojson (hand-written, see
/// Data/README.md).
@Suite struct StoreFormatTests {
    static func byName(_ stores: [Store]) -> [String: Store] {
        Dictionary(stores.map { ($0.name ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func gpxWaypointsImportOnceWithStableIDs() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let path = Repo.path("Data/examples/places.gpx")
        let first = try await Importer.importStores(from: path, into: store)
        #expect(first.inserted == 6 && first.rejected == 0)  // the track is not a place
        #expect(try await Importer.importStores(from: path, into: store).unchanged == 6)
        // The same waypoints written with other number formatting keep their ids.
        let text = try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "lat=\"60.169420\" lon=\"24.931080\"", with: "lat=\"60.16942\" lon=\"24.93108\"")
        let reformatted = scratch.file("places.gpx", text)
        let again = try await Importer.importStores(from: reformatted, into: store)
        #expect(again.inserted == 0 && again.unchanged == 6)

        let stores = Self.byName(try store.readHere { try $0.allStores(kind: nil) })
        let coffee = try #require(stores["Robert's Coffee Kamppi"])
        #expect(coffee.kind == "amenity:cafe")
        #expect(coffee.coordinate.latitude == 60.16942 && coffee.coordinate.longitude == 24.93108)
        #expect(coffee.id.hasPrefix("p") && coffee.id.count == 17)
        #expect(stores["R-kioski Rautatientori"]?.kind == "Convenience Store")  // sym when there is no type
        #expect(stores["Kahvila Säpä"] != nil)
        // Derived ids do not depend on the database: reading the file again gives the same ones.
        #expect(Set(try Importer.readStores(from: path).map(\.id)) == Set(stores.values.map(\.id)))
    }

    @Test func gpxErrorsNameTheLine() async throws {
        let scratch = Scratch()
        let path = scratch.file("bad.gpx", """
            <?xml version="1.0"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">
              <wpt lat="95.0" lon="24.9"><name>North of the pole</name></wpt>
              <wpt lon="24.9"><name>Half a position</name></wpt>
              <wpt lat="60.1" lon="24.9"><name>Fine</name></wpt>
              <wpt lat="60.1" lon="24.9"><name>Fine</name></wpt>
            </gpx>
            """)
        await #expect(throws: ImportError.rejected(errors: [
            RowError(file: path, line: 3, column: "lat", reason: "\"95.0\" is outside [-90, 90]"),
            RowError(file: path, line: 4, column: "lat", reason: "is empty but lon is given; give both or neither"),
        ], badRows: 2)) { try await Importer.importStores(from: path, into: try scratch.store()) }
        let broken = scratch.file("broken.gpx", "<gpx>\n<wpt lat=\"1\" lon=\"2\">\n</gpx>\n")
        await #expect(throws: ImportError.badFile(RowError(file: broken, line: 3, column: "document", reason: "</gpx> where </wpt> (opened on line 2) was expected"))) {
            try await Importer.importStores(from: broken, into: try scratch.store())
        }
    }

    @Test func geoJSONWithoutIDsTakesOSMTags() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let path = Repo.path("Data/examples/osm-places.geojson")
        #expect(try await Importer.importStores(from: path, into: store).inserted == 7)
        let second = try await Importer.importStores(from: path, into: store)
        #expect(second.inserted == 0 && second.unchanged == 7)
        let stores = Self.byName(try store.readHere { try $0.allStores(kind: nil) })
        let regatta = try #require(stores["Café Regatta"])
        #expect(regatta.id == "osm:node/4821953001")
        #expect(regatta.sourceID == "osm:node/4821953001")
        #expect(regatta.kind == "amenity:cafe")
        #expect([regatta.street, regatta.postcode, regatta.city, regatta.country] == ["Merikannontie 8", "00260", "Helsinki", "FI"])
        let alepa = try #require(stores["Alepa Fredrikinkatu"])
        #expect(alepa.kind == "shop:supermarket" && alepa.brand == "Alepa" && alepa.id.hasPrefix("p"))
        let kiosk = try #require(stores["Kiosk Esplanadi"])
        #expect(kiosk.kind == "shop:kiosk" && kiosk.city == "Helsinki")  // given columns win over tags
        let amos = try #require(stores["Amos Rex"])
        #expect(amos.id == "node/4821953004" && amos.sourceID == "osm:node/4821953004" && amos.kind == "tourism:museum")
        #expect(stores["Kauppakeskus Forum (U-shaped outline)"]?.id == "osm:way/118004321")
        #expect(stores[""]?.kind == "amenity:bench")  // unnamed, id from its position
    }

    @Test func identicalPlacesWithoutIDsAreNumbered() async throws {
        let scratch = Scratch()
        let point = #"{"type":"Feature","properties":{"amenity":"bench"},"geometry":{"type":"Point","coordinates":[24.95,60.165]}}"#
        let path = scratch.file("benches.geojson", #"{"type":"FeatureCollection","features":[\#(point),\#(point)]}"#)
        let ids = try Importer.readStores(from: path).map(\.id)
        #expect(ids.count == 2 && ids[1] == ids[0] + "-1")
        let store = try scratch.store()
        #expect(try await Importer.importStores(from: path, into: store).inserted == 2)
        #expect(try await Importer.importStores(from: path, into: store).unchanged == 2)
    }

    /// The outside oracle: shapely (GEOS too, its own build) on the same polygons; and, since
    /// that shares the algorithm, the plain facts: the point is inside each shape, and for the
    /// U-shaped outline the centroid is not (so a centroid would have been wrong).
    @Test func polygonsArePlacedAtTheirPointOnSurface() throws {
        let path = Repo.path("Data/examples/osm-places.geojson")
        let stores = Self.byName(try Importer.readStores(from: path))
        let python = Repo.path(".venv/bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python), "run `make venv` (make test does) to install shapely")
        let script = """
            import json, sys
            from shapely.geometry import shape, Point
            ours = json.loads(sys.argv[2])
            out = {}
            for f in json.load(open(sys.argv[1]))["features"]:
                g = shape(f["geometry"])
                if g.geom_type == "Point":
                    continue
                name = f["properties"]["name"]
                p = g.point_on_surface()
                mine = Point(ours[name])
                out[name] = {"shapely": [p.x, p.y], "inside": g.contains(mine), "centroid_inside": g.contains(g.centroid)}
            print(json.dumps(out))
            """
        let coordinates = stores.compactMapValues { s in [s.coordinate.longitude, s.coordinate.latitude] }
        let argument = String(decoding: try JSONSerialization.data(withJSONObject: coordinates), as: UTF8.self)
        let result = try runProgram(python, ["-c", script, path, argument])
        #expect(result.status == 0, "\(result.err)")
        let oracle = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: [String: Any]])
        #expect(oracle.count == 2)
        for (name, answer) in oracle {
            let mine = try #require(stores[name]).coordinate
            let theirs = try #require(answer["shapely"] as? [Double])
            #expect(abs(mine.longitude - theirs[0]) < 1e-9 && abs(mine.latitude - theirs[1]) < 1e-9, "\(name)")
            #expect(answer["inside"] as? Bool == true, "\(name)")
        }
        #expect(oracle["Kauppakeskus Forum (U-shaped outline)"]?["centroid_inside"] as? Bool == false)
    }

    @Test func badPolygonsAreRejectedAtTheFeature() async throws {
        let scratch = Scratch()
        func feature(_ geometry: String) -> String { #"{"type":"Feature","properties":{"name":"x"},"geometry":\#(geometry)}"# }
        let bowtie = feature(#"{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}"#)
        let open = feature(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}"#)
        let line = feature(#"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#)
        let path = scratch.file("bad.geojson", #"{"type":"FeatureCollection","features":[\#(bowtie),\#(open),\#(line)]}"#)
        do {
            _ = try await Importer.importStores(from: path, into: try scratch.store())
            Issue.record("imported bad polygons")
        } catch let ImportError.rejected(errors, _) {
            #expect(errors.map(\.description) == [
                "\(path):feature 1: geometry: is not a valid polygon (GEOS: Self-intersection[0.5 0.5]); fix the outline, e.g. with ogr2ogr -makevalid",
                "\(path):feature 2: geometry: has a ring that is not closed or has fewer than 4 positions",
                "\(path):feature 3: geometry: is a LineString; a store is a Point, Polygon or MultiPolygon",
            ])
        }
    }
}
