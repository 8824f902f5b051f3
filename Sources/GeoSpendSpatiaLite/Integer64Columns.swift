import GRDB

/// Integer columns whose values can pass 2^31 − 1, declared `BIGINT` so GDAL (and QGIS and
/// geopandas, which read through it) see them as Integer64. GDAL's SQLite/SpatiaLite driver maps a
/// declared `INTEGER` to a 32-bit Integer field and clamps larger values to 2147483647 (a
/// 25,000,000.00 IDR expense read as 21,474,836.47); `BIGINT`, `INT8` and `INT64` it maps to
/// Integer64. Checked with `ogrinfo -so` (GDAL 3.6.2, Debian 12) on a table declaring each.
///
/// SQLite cannot alter a column's type. Rebuilding `expenses` and `stores` would rewrite every row
/// and re-register both geometry columns, their R*Trees and SpatiaLite's triggers. Instead the
/// migration edits the declared types in `sqlite_master` under `PRAGMA writable_schema`, the
/// way SQLite documents for changes that leave stored data valid ("Making Other Kinds Of Table
/// Schema Changes", https://sqlite.org/lang_altertable.html), as migration v3 did for a CHECK:
/// - `INTEGER` and `BIGINT` have the same affinity (both contain "INT": rule 1 of "Determination
///   of Column Affinity", https://sqlite.org/datatype3.html), so every stored value, index and
///   comparison stays as it was;
/// - no `INTEGER PRIMARY KEY` is touched (`pk`, `categories.id`): only that exact spelling makes
///   a column the rowid, and they are GDAL's FIDs, 64-bit already;
/// - it runs inside the migrations' one transaction: a kill or a full disk leaves the old text.
/// `utc_offset_min` (±1,080) stays `INTEGER`.
enum Integer64Columns {
    /// The columns, as the v1 schema declares them: table, declaration before, and after.
    static let declarations: [(table: String, column: String, before: String, after: String)] = [
        ("expenses", "amount_minor", "amount_minor INTEGER NOT NULL", "amount_minor BIGINT NOT NULL"),
        ("expenses", "occurred_ms", "occurred_ms INTEGER NOT NULL", "occurred_ms BIGINT NOT NULL"),
        ("expenses", "category_id", "category_id INTEGER REFERENCES", "category_id BIGINT REFERENCES"),
        ("expenses", "content_hash", "content_hash INTEGER NOT NULL", "content_hash BIGINT NOT NULL"),
        ("stores", "content_hash", "content_hash INTEGER NOT NULL", "content_hash BIGINT NOT NULL"),
    ]

    /// Declares the columns `BIGINT`, inside the caller's transaction; throws (and so rolls the
    /// migration back) when a table's text is not the one GeoSpend wrote.
    static func declare(_ db: Database) throws {
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        try db.execute(sql: "PRAGMA writable_schema = ON")
        for d in declarations {
            try db.execute(
                sql: "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = ?",
                arguments: [d.before, d.after, d.table])
        }
        // A new schema version makes every connection re-read the schema (lang_altertable.html, step 9).
        try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
        try db.execute(sql: "PRAGMA writable_schema = OFF")
        for d in declarations {
            let declared = try String.fetchOne(
                db, sql: "SELECT type FROM pragma_table_info(?) WHERE name = ?", arguments: [d.table, d.column])
            guard declared == "BIGINT" else {
                throw StoreError.cannotOpen(
                    path: db.description,
                    reason: "migration v4 could not declare \(d.table).\(d.column) BIGINT (declared \(declared ?? "nowhere")); the table's schema is not GeoSpend's: run `geospend doctor`")
            }
        }
    }
}
