import Foundation
import GRDB
import GeoSpend
import Testing

@testable import GeoSpendSpatiaLite

/// Insights' store labels are kept per read connection while the file is unchanged
/// (`StoreLabelCache`): a commit between two read scopes, by this store's writer or by another
/// connection, shows in the next scope.
@Suite struct StoreLabelCacheTests {
    /// Labels from a scope that has read something first (the cache serves only scopes with a
    /// snapshot), several times so that every reader connection the pool hands out has cached them.
    static func labels(_ store: SpatiaLiteStore, _ ids: [String], times: Int = 4) async throws -> [String] {
        var seen: [String] = []
        for _ in 0..<times {
            let labels = try await store.read { r in
                _ = try r.counts()
                return try r.storeLabels(ids).map { $0.map { "\($0.name) \($0.coordinate.latitude) \($0.coordinate.longitude)" } ?? "nil" }
            }
            seen += labels
        }
        return Array(Set(seen)).sorted()
    }

    static func storeWithOneCafe(_ scratch: Scratch) async throws -> SpatiaLiteStore {
        let store = try scratch.store()
        let csv = scratch.file("s.csv", "id,name,kind,lat,lon\nS1,Cafe One,amenity:cafe,60.17,24.94\n")
        _ = try await Importer.importStores(from: csv, into: store)
        return store
    }

    @Test func aRenameByTheStoresOwnWriterShows() async throws {
        let scratch = Scratch()
        let store = try await Self.storeWithOneCafe(scratch)
        #expect(try await Self.labels(store, ["S1"]) == ["Cafe One 60.17 24.94"])
        try await store.writeTransaction { db in try db.execute(sql: "UPDATE stores SET name = 'Cafe Two' WHERE id = 'S1'") }
        #expect(try await Self.labels(store, ["S1"]) == ["Cafe Two 60.17 24.94"])
        _ = try store.deleteStore("S1")
        #expect(try await Self.labels(store, ["S1"]) == ["nil"])
    }

    @Test func aRenameByAnotherConnectionShows() async throws {
        let scratch = Scratch()
        let store = try await Self.storeWithOneCafe(scratch)
        #expect(try await Self.labels(store, ["S1"]) == ["Cafe One 60.17 24.94"])
        // Another program's connection, as `sqlite3` or QGIS would write.
        let other = try DatabaseQueue(path: scratch.path("test.sqlite"))
        try await other.write { db in try db.execute(sql: "UPDATE stores SET name = 'Cafe Three' WHERE id = 'S1'") }
        try other.close()
        #expect(try await Self.labels(store, ["S1"]) == ["Cafe Three 60.17 24.94"])
    }

    /// Ids are compared as bytes, as the rows' store ids are: é composed and decomposed are two
    /// stores, and the second asked must not get the first's cached label.
    @Test func idsEqualAsSwiftStringsAreTwoStores() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        _ = try await Importer.importStores(
            from: scratch.file("s.csv", "id,name,kind,lat,lon\n\(composed),Composed,amenity:cafe,60.17,24.94\n"), into: store)
        // Imports refuse the second as a duplicate; a file written by another program can hold both.
        try await store.writeTransaction { db in
            try db.execute(sql: """
                INSERT INTO stores (id, name, lat, lon, content_hash, geom)
                VALUES (?, 'Decomposed', 60.18, 24.95, 0, MakePoint(24.95, 60.18, 4326))
                """, arguments: [decomposed])
        }
        #expect(try await Self.labels(store, [composed]) == ["Composed 60.17 24.94"])
        #expect(try await Self.labels(store, [decomposed]) == ["Decomposed 60.18 24.95"])
    }

    /// Insights whose labels come partly or wholly from the cache (user2's stores cached first,
    /// then user1's asked, which share some) equal those read with no cache at all.
    @Test func insightsFromCachedLabelsEqualUncachedOnes() async throws {
        let scratch = Scratch()
        let (store, _) = try await InsightsTests.helsinkiStore(scratch, users: 2, count: 600, seed: 6)
        let request = InsightsRequest(userID: "user1", grouping: .store)
        _ = try await LocationInsights.compute(InsightsRequest(userID: "user2", grouping: .store), store: store)
        var answers: [[PlaceInsight]] = []
        for _ in 0..<3 { answers.append(try await LocationInsights.compute(request, store: store).places) }
        let expected = try store.readDatabase { db in try LocationInsights.compute(request, reader: SpatiaLiteReader(db)) }.places
        #expect(expected.count > 5)
        #expect(answers.allSatisfy { $0 == expected })
    }
}
