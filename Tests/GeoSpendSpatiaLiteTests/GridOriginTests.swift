import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// Grids and density surfaces bin in one pass on a guessed origin and rebin when the layer's
/// extent settles elsewhere (GridLayers.swift, `BinnedLayer`). Whatever the guess, the cells must
/// be those of the settled grid: the same as with that origin given explicitly.
@Suite struct GridOriginTests {
    /// Helsinki in EUR (3 expenses) and Tokyo in JPY (5, so JPY is the layer's currency): the
    /// spatial index's root box is centred between the two, so an all-users guess is wrong.
    static let rows = """
        id,user,kind,amount,currency,occurred_at,category,lat,lon
        h1,ann,expense,4.50,EUR,2025-03-01T08:00:00+02:00,Food,60.1700,24.9400
        h2,bob,expense,12.25,EUR,2025-03-02T18:30:00+02:00,Food,60.1712,24.9431
        h3,ann,expense,3.10,EUR,2025-03-03T09:15:00+02:00,Food,60.1699,24.9398
        t1,ann,expense,500,JPY,2025-03-04T12:00:00+09:00,Food,35.6812,139.7671
        t2,bob,expense,1200,JPY,2025-03-05T12:00:00+09:00,Food,35.6895,139.6917
        t3,bob,expense,800,JPY,2025-03-06T12:00:00+09:00,Food,35.6586,139.7454
        t4,cy,expense,300,JPY,2025-03-07T12:00:00+09:00,Food,35.7100,139.8107
        t5,ann,expense,950,JPY,2025-03-08T12:00:00+09:00,Food,35.6812,139.7672
        """

    static func store(_ scratch: Scratch) async throws -> SpatiaLiteStore {
        let store = try scratch.store()
        _ = try await Importer.importExpenses(from: scratch.file("e.csv", rows), into: store)
        return store
    }

    static func export(_ layer: MapLayer, _ request: MapExportRequest, _ store: SpatiaLiteStore) async throws -> String {
        let sink = ByteSink()
        try await MapExport.geoJSON(layer, request, store: store, to: sink)
        return String(decoding: sink.bytes, as: UTF8.self)
    }

    static let layers: [MapLayer] = [
        .grid(.hex, cellMeters: 250, metric: .total), .grid(.square, cellMeters: 500, metric: .count),
        .density(bandwidthMeters: 300, cellMeters: 100),
    ]

    @Test(arguments: layers)
    func wrongGuessStillGivesTheSettledGrid(layer: MapLayer) async throws {
        let scratch = Scratch()
        let store = try await Self.store(scratch)
        let hint = try #require(try store.readHere { try $0.geotaggedCenterHint() })
        #expect(MetricGrid.origin(around: hint) != Coordinate(uncheckedLatitude: 36, longitude: 140), "the guess must be wrong here")

        for userID in [nil, "bob"] as [String?] {
            let filter = ExpenseFilter(userID: userID, kinds: [.expense])
            let guessed = try await Self.export(layer, MapExportRequest(filter: filter, generatedAt: "x"), store)
            // The JPY extent's centre rounds to 36° N 140° E (bob's too).
            let explicit = try await Self.export(
                layer, MapExportRequest(filter: filter, origin: Coordinate(uncheckedLatitude: 36, longitude: 140), generatedAt: "x"), store)
            #expect(guessed.contains("+lat_0=36 +lon_0=140"))
            #expect(guessed == explicit)
            #expect(guessed.contains("\"currency\":\"JPY\""))
            #expect(!guessed.contains("\"currency\":\"EUR\""))
        }
    }

    @Test func hintIsTheCentreOfEveryGeotaggedExpense() async throws {
        let scratch = Scratch()
        let store = try await Self.store(scratch)
        let hint = try #require(try store.readHere { try $0.geotaggedCenterHint() })
        // Box 35.6586…60.1712 N, 24.9398…139.8107 E; float rounding moves it by < 1e-5°.
        #expect(abs(hint.latitude - (35.6586 + 60.1712) / 2) < 1e-5)
        #expect(abs(hint.longitude - (24.9398 + 139.8107) / 2) < 1e-5)
        #expect(try scratch.store("empty.sqlite").readHere { try $0.geotaggedCenterHint() } == nil)  // no root entries
    }
}
