import Foundation
import GRDB
import GeoSpend
import GeoSpendSpatiaLite
import Testing

@Suite struct ImportTests {
    static let header = "id,user,kind,amount,currency,occurred_at,title,category,merchant,lat,lon,accuracy_m,store_id,notes\n"
    static let good = "g1,ann,expense,4.50,EUR,2025-03-01T08:15:00+02:00,Coffee,Food,Cafe,60.1710,24.9414,12,,\n"

    /// Imports `body` (after a good first row) and expects rejection with the given location and reason.
    func expectRejected(
        _ body: String, header: String = ImportTests.header, line: Int = 3, column: String, reason: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let file = scratch.file("bad.csv", header + Self.good + body)
        await #expect(sourceLocation: sourceLocation) {
            _ = try await Importer.importExpenses(from: file, into: store)
        } throws: { error in
            guard case ImportError.rejected(let errors, _) = error else { return false }
            let expected = "\(file):\(line): \(column): "
            return errors.contains { $0.description.hasPrefix(expected) && $0.reason.contains(reason) }
        }
        #expect(try store.readHere { try $0.counts() }.expenses == 0, "nothing may be written", sourceLocation: sourceLocation)
    }

    @Test func raggedRows() async throws {
        try await expectRejected("g2,ann,expense,1.00,EUR\n", column: "row", reason: "has 5 fields but the header has 14")
        try await expectRejected("g2,ann,expense,1.00,EUR,2025-01-01,,,,,,,,,extra\n", column: "row", reason: "has 15 fields")
    }

    @Test func unterminatedQuoteStopsEverythingAfterIt() async throws {
        try await expectRejected("g2,ann,expense,1.00,EUR,2025-01-01,\"Coffee,Food,,,,,,\ng3,ann,expense,2.00,EUR,2025-01-01,,,,,,,,\n",
            column: "title", reason: "unterminated quoted field")
    }

    @Test func headerProblems() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        for (header, column, reason) in [
            ("user,amount,amount,currency,occurred_at\n", "amount", "twice"),
            ("user,amount,currency,occurred_at,colour\n", "colour", "unknown column"),
            ("user,amount,occurred_at\n", "currency", "required column is missing"),
        ] {
            let file = scratch.file("h.csv", header + "ann,1.00,EUR,2025-01-01,x\n")
            await #expect {
                _ = try await Importer.importExpenses(from: file, into: store)
            } throws: { error in
                guard case ImportError.badFile(let e) = error else { return false }
                return e.description.hasPrefix("\(file):1: \(column): ") && e.reason.contains(reason)
            }
        }
        #expect(try store.readHere { try $0.counts() }.expenses == 0)
    }

    @Test func byteOrderMarkIsAccepted() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let file = scratch.file("bom.csv", bytes: [0xEF, 0xBB, 0xBF] + Array((Self.header + Self.good).utf8))
        #expect(try await Importer.importExpenses(from: file, into: store).inserted == 1)
    }

    @Test func invalidUTF8NulAndHugeFields() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let cases: [([UInt8], String, String)] = [
            (Array("g2,ann,expense,1.00,EUR,2025-01-01,".utf8) + [0xFF, 0xFE] + Array(",,,,,,,\n".utf8), "title", "not valid UTF-8"),
            (Array("g2,ann,expense,1.00,EUR,2025-01-01,a".utf8) + [0] + Array("b,,,,,,,\n".utf8), "title", "NUL"),
            (Array("g2,ann,expense,1.00,EUR,2025-01-01,".utf8) + [UInt8](repeating: 120, count: 70_000) + Array(",,,,,,,\n".utf8),
                "title", "longer than 64 KiB"),
        ]
        for (body, column, reason) in cases {
            let file = scratch.file("b.csv", bytes: Array((Self.header + Self.good).utf8) + body)
            await #expect {
                _ = try await Importer.importExpenses(from: file, into: store)
            } throws: { error in
                guard case ImportError.rejected(let errors, _) = error else { return false }
                return errors.first?.description.hasPrefix("\(file):3: \(column): ") == true && errors[0].reason.contains(reason)
            }
        }
        #expect(try store.readHere { try $0.counts() }.expenses == 0)
    }

    @Test(arguments: [
        ("g2,ann,expense,1.00,EUR,2025-01-01,,,,90.5,24.9,,,\n", "lat", "outside [-90, 90]"),
        ("g2,ann,expense,1.00,EUR,2025-01-01,,,,60.1,180.01,,,\n", "lon", "outside [-180, 180]"),
        ("g2,ann,expense,1.00,EUR,2025-01-01,,,,60.1,,,,\n", "lon", "give both or neither"),
        ("g2,ann,expense,1.00,EUR,2025-01-01,,,,,24.9,,,\n", "lat", "give both or neither"),
        ("g2,ann,expense,1.00,EUR,2025-01-01,,,,nan,24.9,,,\n", "lat", "not a finite number"),
        ("g2,ann,expense,1.00,EUR,2025-01-01,,,,60.1,inf,,,\n", "lon", "not a finite number"),
        ("g2,ann,expense,0,EUR,2025-01-01,,,,,,,,\n", "amount", "is zero"),
        ("g2,ann,expense,-3.00,EUR,2025-01-01,,,,,,,,\n", "amount", "is negative"),
        ("g2,ann,expense,,EUR,2025-01-01,,,,,,,,\n", "amount", "is empty"),
        ("g2,ann,expense,1.005,EUR,2025-01-01,,,,,,,,\n", "amount", "more decimals than EUR allows (2)"),
        ("g2,ann,expense,100.5,JPY,2025-01-01,,,,,,,,\n", "amount", "more decimals than JPY allows (0)"),
        ("g2,ann,expense,1.0001,KWD,2025-01-01,,,,,,,,\n", "amount", "more decimals than KWD allows (3)"),
        ("g2,ann,expense,1.00,EURO,2025-01-01,,,,,,,,\n", "currency", "not an ISO 4217 currency code"),
        ("g2,ann,expense,1.00,XAU,2025-01-01,,,,,,,,\n", "currency", "not money"),
        ("g2,ann,expense,1.00,EUR,2025-03-01T08:15:00,,,,,,,,\n", "occurred_at", "no UTC offset"),
        ("g2,ann,expense,1.00,EUR,yesterday,,,,,,,,\n", "occurred_at", "not an RFC 3339"),
        ("g2,ann,refund,1.00,EUR,2025-01-01,,,,,,,,\n", "kind", "not one of expense, income, transfer"),
        ("g2,,expense,1.00,EUR,2025-01-01,,,,,,,,\n", "user", "required"),
        ("g1,ann,expense,1.00,EUR,2025-01-01,,,,,,,,\n", "id", "appears earlier in this file"),
        ("g2,ann,expense,1.00,EUR,2025-01-01,,,,60.1,24.9,-5,,\n", "accuracy_m", "negative"),
        ("g2,ann,expense,1.00,EUR,2025-01-01,,,,,,,nowhere,\n", "store_id", "not a known store"),
    ])
    func badValues(body: String, column: String, reason: String) async throws {
        try await expectRejected(body, column: column, reason: reason)
    }

    /// Ids are unique per user: bob's g1 is not ann's, and both are written.
    @Test func twoUsersMayShareAnIdInOneFile() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let file = scratch.file("shared.csv", Self.header + Self.good + "g1,bob,expense,2.00,EUR,2025-03-02T09:00:00+02:00,Bread,Food,Bakery,,,,,\n")
        let report = try await Importer.importExpenses(from: file, into: store, options: ImportOptions())
        #expect(report.inserted == 2 && report.rejected == 0, "\(report.errors)")
        #expect(try store.readHere { try $0.counts() } == StoreCounts(users: 2, expenses: 2, geotaggedExpenses: 1, stores: 0))
    }

    @Test func skipInvalidWritesTheGoodRowsAndListsTheBadOnes() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let file = scratch.file(
            "mixed.csv",
            Self.header + Self.good + "g2,ann,expense,0,EUR,2025-01-01,,,,,,,,\ng3,bob,income,2500,EUR,2025-01-25,Salary,Salary,,,,,,\n")
        let report = try await Importer.importExpenses(from: file, into: store, options: ImportOptions(skipInvalid: true))
        #expect(report.inserted == 2)
        #expect(report.rejected == 1)
        #expect(report.errors.map(\.description) == ["\(file):3: amount: \"0\" is zero; amounts are positive"])
        #expect(try store.readHere { try $0.counts() } == StoreCounts(users: 2, expenses: 2, geotaggedExpenses: 1, stores: 0))
    }

    /// A row the writer refuses is named by its own line when bad rows came before it in its
    /// batch: the batch hands the writer its good rows apart from the bad (`ParsedBatch`).
    @Test func writerRejectionsAreNamedByTheirOwnLineAfterBadRows() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let file = scratch.file(
            "mixed.csv",
            Self.header + Self.good + "g2,ann,expense,0,EUR,2025-01-01,,,,,,,,\ng3,bob,expense,1.00,EUR,2025-01-25,,,,,,,,\n"
                + "g4,bob,expense,1.00,EUR,2025-01-25,,,,,,,nowhere,\ng5,bob,expense,1.00,EUR,2025-01-26,,,,,,,,\n")
        let report = try await Importer.importExpenses(from: file, into: store, options: ImportOptions(skipInvalid: true))
        #expect(report.errors.map(\.description) == [
            "\(file):3: amount: \"0\" is zero; amounts are positive",
            "\(file):5: store_id: \"nowhere\" is not a known store; import the stores first",
        ])
        #expect(report.inserted == 3 && report.rejected == 2)
    }

    @Test func reimportChangesNothingAndChangedContentIsAnError() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        // Rows without ids get content-derived ids; two identical rows stay two expenses.
        let body = Self.header + Self.good + ",bob,expense,3.00,EUR,2025-01-02,,,,,,,,\n,bob,expense,3.00,EUR,2025-01-02,,,,,,,,\n"
        let file = scratch.file("e.csv", body)
        #expect(try await Importer.importExpenses(from: file, into: store).inserted == 3)
        let again = try await Importer.importExpenses(from: file, into: store)
        #expect(again.inserted == 0 && again.unchanged == 3)
        #expect(try store.readHere { try $0.counts() }.expenses == 3)

        let changed = scratch.file("changed.csv", Self.header + Self.good.replacingOccurrences(of: "4.50", with: "4.60"))
        await #expect {
            _ = try await Importer.importExpenses(from: changed, into: store)
        } throws: { error in
            guard case ImportError.rejected(let errors, _) = error else { return false }
            return errors[0].description.hasPrefix("\(changed):2: id: ") && errors[0].reason.contains("different content")
        }
    }

    @Test func jsonLinesWithTheSameKeys() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let good = scratch.file(
            "e.jsonl",
            #"{"id":"j1","user":"ann","amount":"12.50","currency":"EUR","occurred_at":"2025-03-01T10:00:00+02:00","lat":60.17,"lon":24.94}"#
                + "\n\n" + #"{"user":"ann","amount":1200,"currency":"JPY","occurred_at":"2025-03-02","category":null}"# + "\n")
        #expect(try await Importer.importExpenses(from: good, into: store).inserted == 2)
        let bad = scratch.file(
            "bad.jsonl",
            #"{"user":"ann","amount":"1.00","currency":"EUR","occurred_at":"2025-03-01","user":"bob"}"# + "\n"
                + #"{"user":"ann","amount":"1.00","currency":"EUR","occurred_at":"2025-03-01","colour":"red"}"# + "\n"
                + #"{"user":"ann","amount":"1.00","currency":"EUR","occurred_at":"2025-03-01","lat":NaN,"lon":1}"# + "\n"
                + #"[1,2]"# + "\n" + #"{"user":"ann","amount":["1"],"currency":"EUR","occurred_at":"2025-03-01"}"# + "\n")
        await #expect {
            _ = try await Importer.importExpenses(from: bad, into: store)
        } throws: { error in
            guard case ImportError.rejected(let errors, let count) = error else { return false }
            let text = errors.map(\.description)
            return count == 5 && text[0].contains(":1: row: ") && text[0].contains("\"user\" twice")
                && text[1].contains(":2: colour: unknown key") && text[2].contains(":3: row: ")
                && text[3].contains(":4: row: is an array") && text[4].contains(":5: amount: is an array")
        }
        #expect(try store.readHere { try $0.counts() }.expenses == 2)
    }

    @Test func helsinkiPlacesImportAsStores() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let report = try await Importer.importStores(from: Repo.path("Data/helsinki-places.geojson"), into: store)
        #expect(report.inserted == 936)
        #expect(try await Importer.importStores(from: Repo.path("Data/helsinki-places.geojson"), into: store).unchanged == 936)
        let row = try #require(try store.readDatabase { db in
            try Row.fetchOne(db, sql: "SELECT name, kind, street, source_id, lat, lon FROM stores WHERE id = '56418307'")
        })
        #expect(row["name"] as String == "Ravintolalaiva M/S Maria")
        #expect(row["kind"] as String == "amenity:restaurant")
        #expect(row["source_id"] as String == "osm:node/56418307")
        #expect(row["lat"] as Double == 60.1780028 && row["lon"] as Double == 24.9528524)  // [lon, lat] read right
        #expect(try store.scalar("SELECT CheckSpatialIndex('stores', 'geom')") == 1)
    }

    @Test func storeCSVAndBadStoreRows() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let file = scratch.file("s.csv", "id,name,lat,lon,kind\nx1,Kiosk,60.1,24.9,shop:kiosk\nx2,,60.1,24.9,\nx3,Far,95,24.9,\n")
        await #expect {
            _ = try await Importer.importStores(from: file, into: store)
        } throws: { error in
            guard case ImportError.rejected(let errors, _) = error else { return false }
            return errors.map(\.description) == [
                "\(file):3: name: is empty; this column is required", "\(file):4: lat: \"95.0\" is outside [-90, 90]",
            ]
        }
        #expect(try store.readHere { try $0.counts() }.stores == 0)
    }
}
