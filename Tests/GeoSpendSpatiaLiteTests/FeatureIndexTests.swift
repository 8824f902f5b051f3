import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// `FeatureIndex` gives the features of a layer as values (the OGC API's pages): each must be
/// exactly what a reader of the layer's GeoJSON text finds — the same id, the same JSON object
/// and the box of the coordinates as written — for every layer the OGC API serves.
@Suite struct FeatureIndexTests {
    static let layers: [MapLayer] = [
        .points, .places, .grid(.hex, cellMeters: 250, metric: .total), .grid(.square, cellMeters: 500, metric: .count),
        .density(bandwidthMeters: 300, cellMeters: 50),
    ]

    @Test(arguments: 0..<layers.count)
    func indexedFeaturesAreTheTextsFeatures(layer k: Int) async throws {
        let g = try await ExportTests.Generated(seed: 5)
        // Precision 4 so that rounding moves coordinates: the box must be of the written ones.
        var request = MapExportRequest(filter: ExpenseFilter(userID: "user2", kinds: [.expense], currency: ExportTests.eur), precision: 4)
        let index = FeatureIndex(), sink = ByteSink()
        request.featureIndex = index
        try await MapExport.geoJSON(Self.layers[k], request, store: g.store, to: sink)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(sink.bytes)) as? [String: Any])
        let expected = ExportTests.features(doc)
        let indexed = index.features(in: sink.bytes)
        #expect(expected.count > 3)
        #expect(indexed.count == expected.count)
        for (f, e) in zip(indexed, expected) {
            #expect(f.id == e["id"] as? String)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(f.json.utf8)) as? NSDictionary)
            #expect(object == e as NSDictionary)
            var box = (w: Double.infinity, s: Double.infinity, e: -Double.infinity, n: -Double.infinity)
            func visit(_ value: Any) {
                if let pair = value as? [Double], pair.count == 2 {
                    box = (min(box.w, pair[0]), min(box.s, pair[1]), max(box.e, pair[0]), max(box.n, pair[1]))
                } else if let list = value as? [Any] { list.forEach(visit) }
            }
            visit(((e["geometry"] as? [String: Any])?["coordinates"]) as Any)
            #expect(f.box.west == box.w && f.box.south == box.s && f.box.east == box.e && f.box.north == box.n, "\(f.id)")
        }
    }

    @Test func aDensityKernelOutsideOneTo200CellsIsRefusedInTheCallersWords() throws {
        #expect(throws: UsageError("--bandwidth must be at least the --cell size")) {
            try MapLayer.density(bandwidthMeters: 40, cellMeters: 50, options: ("--bandwidth", "--cell"))
        }
        #expect(throws: UsageError("bandwidth is more than 200 cells wide; use a larger cell")) {
            try MapLayer.density(bandwidthMeters: 10_050, cellMeters: 50, options: ("bandwidth", "cell"))
        }
        #expect(try MapLayer.density(bandwidthMeters: 10_000, cellMeters: 50, options: ("b", "c")) == .density(bandwidthMeters: 10_000, cellMeters: 50))
    }
}
