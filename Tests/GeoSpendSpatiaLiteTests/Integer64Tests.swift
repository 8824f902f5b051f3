import Foundation
import GeoSpendTestSupport
import GRDB
import GeoSpend
@testable import GeoSpendSpatiaLite
import Testing

/// Amounts, instants and hashes past 2^31 − 1 reach GDAL, QGIS and geopandas whole (issue 15:
/// declared INTEGER, GDAL read them as 32-bit and clamped them to 2147483647). The readers are the
/// oracles: Debian's `ogrinfo`/`ogr2ogr` (GDAL 3.6.2) and `geopandas.read_file` from .venv.
@Suite struct Integer64Tests {
    /// 25,000,000.00 IDR; 2100-01-01T00:00:00Z in milliseconds; hashes at both ends of Int64.
    static let amount: Int64 = 2_500_000_000
    static let instant: Int64 = 4_102_444_800_000
    static let expenseHash: Int64 = -8_070_450_532_247_928_832
    static let storeHash: Int64 = 9_223_372_036_854_775_807

    /// The expense and store above, written with plain SQL (SpatiaLite's triggers index the
    /// geometries), so a file of any schema version can hold them.
    static let rows = """
        INSERT INTO users (id) VALUES ('ann');
        INSERT INTO stores (id, name, lat, lon, content_hash, geom)
            VALUES ('shop', 'Shop', -6.2, 106.8, \(storeHash), MakePoint(106.8, -6.2, 4326));
        INSERT INTO expenses (id, user_id, kind, amount_minor, currency, occurred_at, occurred_ms, utc_offset_min,
                local_date, lat, lon, store_id, content_hash, geom)
            VALUES ('big', 'ann', 'expense', \(amount), 'IDR', '2100-01-01T00:00:00Z', \(instant), 0,
                '2100-01-01', -6.2, 106.8, 'shop', \(expenseHash), MakePoint(106.8, -6.2, 4326));
        """

    /// GDAL's field types of a layer, from `ogrinfo -so` ("amount_minor: Integer64 (0.0)").
    static func fieldTypes(_ database: String, _ layer: String) throws -> [String: String] {
        let r = try runProgram("/usr/bin/ogrinfo", ["-ro", "-so", database, layer])
        #expect(r.status == 0, "\(r.err)")
        var types: [String: String] = [:]
        for line in r.out.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, let type = parts[1].split(separator: " ").first { types[parts[0]] = String(type) }
        }
        return types
    }

    static func checkGDALSeesInteger64(_ database: String) throws {
        let expenses = try fieldTypes(database, "expenses")
        for column in ["amount_minor", "occurred_ms", "content_hash", "category_id"] {
            #expect(expenses[column] == "Integer64", "expenses.\(column): \(expenses[column] ?? "missing")")
        }
        #expect(expenses["utc_offset_min"] == "Integer")
        #expect(try fieldTypes(database, "stores")["content_hash"] == "Integer64")
    }

    /// ogr2ogr to CSV and geopandas read the values exactly.
    static func checkReadersReadExactly(_ database: String, scratch: Scratch) throws {
        let csv = scratch.path("expenses.csv")
        let r = try runProgram("/usr/bin/ogr2ogr", ["-f", "CSV", csv, database, "expenses", "-select", "id,amount_minor,occurred_ms,content_hash"])
        #expect(r.status == 0 && !r.err.contains("overflow"), "\(r.err)")
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map { $0.replacingOccurrences(of: "\"", with: "") }
        #expect(lines == ["id,amount_minor,occurred_ms,content_hash", "big,\(amount),\(instant),\(expenseHash)"])
        let stores = try runProgram("/usr/bin/ogrinfo", ["-ro", "-q", database, "-sql", "SELECT content_hash FROM stores"])
        #expect(stores.out.contains("content_hash (Integer64) = \(storeHash)"), "\(stores.out)\(stores.err)")

        let python = Repo.path(".venv/bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python), "run `make venv` (make test does) to install the readers")
        let script = """
            import sys, geopandas
            e = geopandas.read_file(sys.argv[1], layer="expenses")
            s = geopandas.read_file(sys.argv[1], layer="stores")
            print(e["amount_minor"].dtype, int(e["amount_minor"][0]), int(e["occurred_ms"][0]), int(e["content_hash"][0]), int(s["content_hash"][0]))
            """
        let py = try runProgram(python, ["-c", script, database])
        #expect(py.status == 0, "\(py.err)")
        #expect(py.out == "int64 \(amount) \(instant) \(expenseHash) \(storeHash)\n", "\(py.out)\(py.err)")
    }

    @Test func aNewFileDeclaresBigIntColumnsThatReadersReadWhole() throws {
        let scratch = Scratch()
        _ = try scratch.store()
        try SQLiteShell.execute(scratch.path("test.sqlite"), Self.rows)
        try Self.checkGDALSeesInteger64(scratch.path("test.sqlite"))
        try Self.checkReadersReadExactly(scratch.path("test.sqlite"), scratch: scratch)
    }

    /// A file the previous schema (v3) wrote, with its rows, is migrated on open: the declared
    /// types change and nothing else — the rows, the tables' other text, the spatial indexes.
    /// The columns v18 adds to `expenses` (a position's provenance, issue 36), as SQLite writes them.
    static let positionColumns = ", position_source TEXT, position_confidence REAL CHECK (position_confidence BETWEEN 0 AND 1), "
        + "store_inferred INTEGER NOT NULL DEFAULT 0 CHECK (store_inferred = 0 OR store_inferred = 1)"

    @Test func aVersion3FileIsMigratedInPlace() throws {
        let scratch = Scratch()
        let path = scratch.path("v3.sqlite")
        let before: [String: String] = try OlderFile.make(at: path, before: "v4") { db in
            try db.execute(sql: Self.rows)
            return Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE name IN ('expenses', 'stores')").map { ($0[0] as String, $0[1] as String) })
        }
        #expect(try Self.fieldTypes(path, "expenses")["amount_minor"] == "Integer")  // the issue, before

        let store = try SpatiaLiteStore(path: path)
        try Self.checkGDALSeesInteger64(path)
        try Self.checkReadersReadExactly(path, scratch: scratch)
        // Only the declarations changed (and the later migrations' columns were added: v6's
        // period link, see PeriodStorageTests; v17 rebuilt expenses with ids unique per user,
        // the table renamed into place, which quotes its name).
        for (table, sql) in before {
            var expected = Integer64Columns.declarations.filter { $0.table == table }.reduce(sql) { $0.replacingOccurrences(of: $1.before, with: $1.after) }
            if table == "expenses" {
                let body = expected[expected.index(after: expected.firstIndex(of: "(")!)..<expected.lastIndex(of: ")")!]
                expected = "CREATE TABLE \"expenses\" (" + body.replacingOccurrences(of: PerUserExpenseIDs.columnBefore, with: PerUserExpenseIDs.columnAfter)
                    + ",\n    \(PerUserExpenseIDs.tableConstraint)\n)"
            }
            // v5, v6 and v18 then add columns (SQLite writes them after the last column, before the CHECK).
            let actual = try #require(try store.scalar("SELECT sql FROM sqlite_master WHERE name = '\(table)'", as: String.self))
            #expect(actual.replacingOccurrences(of: ", created_at TEXT, updated_at TEXT, remind_at TEXT, remind_ms BIGINT", with: "").replacingOccurrences(of: PeriodStorageTests.addedColumn, with: "")
                .replacingOccurrences(of: Self.positionColumns, with: "") == expected, "\(actual)")
        }
        #expect(try store.scalar("SELECT count(*) FROM idx_expenses_geom") == 1)
        #expect(try store.scalar("SELECT amount_minor FROM expenses WHERE id = 'big'", as: Int64.self) == Self.amount)
        // doctor's checks (integrity, spatial indexes, triggers, lat/lon against geometry) pass,
        // and it knows the version.
        let health = try store.checkHealth()
        #expect(health.isHealthy, "\(health.checks.filter { !$0.ok })")
        let version = health.checks.first { $0.name == "schema version" }
        #expect(version?.ok == true && version?.detail == "\(Schema.versions.last!.prefix { $0 != ":" }) (current)", "\(String(describing: version))")
    }

    /// The migration is one transaction: when it fails (here: a table whose text is not
    /// GeoSpend's), the file keeps its v3 text and its version.
    @Test func aFailedMigrationLeavesTheFileAsItWas() throws {
        let scratch = Scratch()
        let path = scratch.path("v3.sqlite")
        var config = Configuration()
        config.prepareDatabase { db in try SpatiaLiteExtension.load(into: db) }
        let queue = try DatabaseQueue(path: path, configuration: config)
        let v3 = Schema.migrations.prefix { !$0.identifier.hasPrefix("v4") }
        try queue.write { db in
            _ = try Int.fetchOne(db, sql: "SELECT InitSpatialMetadata(0)")
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            for m in v3 {
                try m.apply(db)
                try db.execute(sql: "INSERT INTO grdb_migrations VALUES (?)", arguments: [m.identifier])
            }
            // Another tool's spelling of the column: the migration's text does not match it.
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(sql: "UPDATE sqlite_master SET sql = replace(sql, 'occurred_ms INTEGER NOT NULL', 'occurred_ms  INTEGER NOT NULL') WHERE name = 'expenses'")
            try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
            try db.execute(sql: "PRAGMA writable_schema = OFF")
        }
        let sql = try queue.read { db in try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE name IN ('expenses', 'stores') ORDER BY name") }
        try queue.close()
        #expect(throws: StoreError.self) { _ = try SpatiaLiteStore(path: path) }
        let after = try DatabaseQueue(path: path, configuration: config)
        #expect(try after.read { db in try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE name IN ('expenses', 'stores') ORDER BY name") } == sql)
        #expect(try after.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }.count == 3)
    }
}
