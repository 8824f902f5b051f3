import Foundation
import GeoSpendTestSupport
import Testing

@testable import GeoSpend

/// Small parsing errors from the outside test of issue 22 (item 14): each must say what is
/// wrong with the input as given, and how to fix it.
@Suite struct InputErrorTests {
    func withFile<T>(_ bytes: [UInt8], _ body: (String) throws -> T) throws -> T { try Fixtures.withFile(bytes, body) }

    /// What each reader says about a file: its first document error, or its row errors.
    func errors(_ bytes: [UInt8], format: ImportFormat) throws -> [String] {
        try withFile(bytes) { path in
            var found: [String] = []
            do {
                switch format {
                case .csv:
                    _ = try RecordReaders.csv(path: path, displayName: "in", known: ExpenseRecord.columns, required: ExpenseRecord.required) {
                        if case .failure(let e) = $0 { found.append(e.description) }
                    }
                case .jsonl:
                    _ = try RecordReaders.jsonLines(path: path, displayName: "in", known: ExpenseRecord.columns) {
                        if case .failure(let e) = $0 { found.append(e.description) }
                    }
                case .geojson:
                    _ = try RecordReaders.geoJSONStores(path: path, displayName: "in") {
                        if case .failure(let e) = $0 { found.append(e.description) }
                    }
                case .gpx:
                    _ = try RecordReaders.gpxStores(path: path, displayName: "in") {
                        if case .failure(let e) = $0 { found.append(e.description) }
                    }
                }
            } catch let ImportError.badFile(e) {
                found.append(e.description)
            }
            return found
        }
    }

    static let texts: [(ImportFormat, String)] = [
        (.csv, "user,amount,currency,occurred_at\nann,1.00,EUR,2025-01-01\n"),
        (.jsonl, "{\"user\":\"ann\",\"amount\":\"1.00\",\"currency\":\"EUR\",\"occurred_at\":\"2025-01-01\"}\n"),
        (.geojson, #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"s1","geometry":{"type":"Point","coordinates":[24.9,60.1]},"properties":{"name":"A"}}]}"#),
        (.gpx, #"<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1"><wpt lat="60.1" lon="24.9"><name>A</name></wpt></gpx>"#),
    ]

    /// Was "contains a NUL byte" on every line.
    @Test(arguments: texts)
    func wideUnicodeFilesAreNamedWithTheConversion(format: ImportFormat, text: String) throws {
        let utf16LE = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let utf16BE = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let utf32LE = text.unicodeScalars.flatMap { s in (0..<4).map { UInt8((s.value >> (8 * $0)) & 0xFF) } }
        for (bytes, encoding) in [
            ([0xFF, 0xFE] + utf16LE, "UTF-16"), ([0xFE, 0xFF] + utf16BE, "UTF-16"), (utf16LE, "UTF-16LE"), (utf16BE, "UTF-16BE"),
            ([0xFF, 0xFE, 0, 0] + utf32LE, "UTF-32"), (utf32LE, "UTF-32LE"),
        ] {
            let errors = try errors(bytes, format: format)
            // A delimited file in UTF-16 is read with --encoding utf16 (issue 15).
            let fix = format == .csv && encoding.hasPrefix("UTF-16")
                ? "import it with --encoding utf16" : "convert it with `iconv -f \(encoding) -t UTF-8 in > in.utf8`"
            #expect(errors == ["in:1: encoding: is \(encoding), not UTF-8; \(fix)"])
        }
        #expect(try errors(Array(text.utf8), format: format) == [])
        #expect(try errors([0xEF, 0xBB, 0xBF] + Array(text.utf8), format: format) == [])
    }

    /// Was "id: is empty".
    @Test func geoJSONIdsOfTheWrongTypeSaySo() throws {
        func feature(_ id: String) -> String {
            #"{"type":"Feature","id":\#(id),"geometry":{"type":"Point","coordinates":[24.9,60.1]},"properties":{"name":"A"}}"#
        }
        let doc = #"{"type":"FeatureCollection","features":[\#(feature(#"{"a":1}"#)),\#(feature("[1]")),\#(feature("true")),\#(feature("7"))]}"#
        #expect(try errors(Array(doc.utf8), format: .geojson) == [
            "in:feature 1: id: must be a string or number, not an object",
            "in:feature 2: id: must be a string or number, not an array",
            "in:feature 3: id: must be a string or number, not a boolean",
        ])
        let named = #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[24.9,60.1]},"properties":{"id":"s1","name":{"fi":"A"}}}]}"#
        #expect(try errors(Array(named.utf8), format: .geojson) == ["in:feature 1: name: is an object; expected a string"])
    }

    /// The streaming reader (item 13) reads what the whole-document parse read: every feature of
    /// the Helsinki places, members in any order, and the document errors at the document.
    @Test func featureCollectionsAreReadFeatureByFeature() throws {
        let path = Repository.root.appendingPathComponent("Data/helsinki-places.geojson").path
        let whole = try StrictJSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        guard case .array(let features)? = whole["features"] else { Issue.record("no features"); return }
        var ids: [String] = []
        _ = try RecordReaders.geoJSONStores(path: path, displayName: "p") { if case .success(let s) = $0 { ids.append(s.store.id) } }
        #expect(ids.count == features.count)

        let point = #"{"type":"Feature","id":"s1","geometry":{"type":"Point","coordinates":[24.9,60.1]},"properties":{"name":"A"}}"#
        #expect(try errors(Array(#"{"features":[\#(point)],"bbox":[1,2,3,4],"type":"FeatureCollection"}"#.utf8), format: .geojson) == [])
        #expect(try errors(Array(#"{"type":"FeatureCollection","features":[]}"#.utf8), format: .geojson) == [])
        let notACollection = "in:1: document: is not a GeoJSON FeatureCollection (expected \"type\": \"FeatureCollection\" and a \"features\" array)"
        for doc in [#"{"type":"Feature","features":[\#(point)]}"#, #"{"type":"FeatureCollection"}"#, #"{"type":"FeatureCollection","features":{}}"#, "[1]", "{}"] {
            #expect(try errors(Array(doc.utf8), format: .geojson) == [notACollection], "\(doc)")
        }
        // Syntax errors: the same byte and reason as parsing the whole document (after the
        // features before the error, which an import then rolls back).
        for doc in [
            #"{"type":"FeatureCollection","features":[\#(point),]}"#, #"{"type":"FeatureCollection","type":"FeatureCollection","features":[]}"#,
            #"{"type":"FeatureCollection","features":[\#(point)]} x"#, #"{"type":"FeatureCollection","features":[\#(point)"#,
            #"{"type":"FeatureCollection","features":[{"a":]}]}"#, #"{"type":"FeatureCollection","features":[1 2]}"#,
            #"{"type":"FeatureCollection" "features":[]}"#, "", "{", #"{"a"}"#,
            #"{"type":"FeatureCollection","features":[\#(String(repeating: "[", count: 70))]}"#,
        ] {
            var expected = "parsed"
            do { _ = try StrictJSONParser.parse(Array(doc.utf8)) } catch { expected = "in:1: document: is not valid JSON at byte \(error.offset): \(error.reason)" }
            #expect(try errors(Array(doc.utf8), format: .geojson).last == expected, "\(doc)")
        }
    }

    /// Was `"2025-13-01" has month 13`: the month as typed, and the range.
    @Test func monthsOutOfRangeAreNamedAsTyped() throws {
        for (text, reason) in [
            ("2025-13", "\"2025-13\" has month 13; months are 01–12"), ("2025-00", "\"2025-00\" has month 00; months are 01–12"),
            ("2025-1", "\"2025-1\" is not a month like 2026-03 (YYYY-MM)"), ("2025-03-01", "\"2025-03-01\" is not a month like 2026-03 (YYYY-MM)"),
            ("+025-03", "\"+025-03\" is not a month like 2026-03 (YYYY-MM)"),
        ] {
            #expect(throws: ValueError.self) { _ = try SpendingSummary.month(text) }
            do { _ = try SpendingSummary.month(text) } catch { #expect(error.description == reason) }
        }
        let (from, to) = try SpendingSummary.month("2024-02")
        #expect((from.text, to.text) == ("2024-02-01", "2024-02-29"))
    }

    /// Was `previous_from: "00-1-12-01"`: there is no year before 0000 to compare with.
    @Test func noPreviousWindowBeforeYearZero() throws {
        func window(_ a: String, _ b: String) throws -> (String?, String?) {
            let (f, t) = LocationInsights.previousWindow(try Timestamp(parsing: a), try Timestamp(parsing: b))
            return (f?.text, t?.text)
        }
        #expect(try window("0000-01-01", "0000-01-31") == (nil, nil))
        #expect(try window("0000-01-01T00:00:00Z", "0000-02-01T00:00:00Z") == (nil, nil))
        #expect(try window("0000-02-01", "0000-02-29") == ("0000-01-03", "0000-01-31"))
        #expect(try window("0001-01-01", "0001-01-31") == ("0000-12-01", "0000-12-31"))
    }

    /// A file given as a pipe (`<(cat u.jsonl)`) is read once: the encoding check looks at the
    /// reader's own first bytes. (It opened the path again and took 4 bytes from the pipe:
    /// "is not valid JSON at byte 5", found by a review.) UTF-16 through a pipe is still named.
    @Test func pipesLoseNoBytesToTheEncodingCheck() throws {
        let line = #"{"user":"u","amount":"1.00","currency":"EUR","occurred_at":"2025-01-01"}"# + "\n"
        let cases: [([UInt8], String)] = [
            (Array(line.utf8), "1 rows, no errors"),
            ([0xFF, 0xFE] + Array(line.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, "is UTF-16"),
        ]
        for (bytes, expected) in cases {
            let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-\(UUID().uuidString)").path
            try #require(mkfifo(fifo, 0o600) == 0)
            defer { unlink(fifo) }
            let writer = Thread {
                let fd = open(fifo, O_WRONLY)
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                // Held open a moment: a second open of the path (the old check's) then gets in
                // and takes bytes, instead of blocking for a writer that never comes.
                usleep(300_000)
                close(fd)
            }
            writer.start()
            var rows = 0, errors: [String] = []
            do {
                _ = try RecordReaders.jsonLines(path: fifo, displayName: "in", known: ExpenseRecord.columns) {
                    switch $0 {
                    case .success: rows += 1
                    case .failure(let e): errors.append(e.description)
                    }
                }
            } catch let ImportError.badFile(e) {
                errors.append(e.description)
            }
            let said = errors.isEmpty ? "\(rows) rows, no errors" : errors.joined(separator: "; ")
            #expect(said.contains(expected), "\(said)")
        }
    }
}
