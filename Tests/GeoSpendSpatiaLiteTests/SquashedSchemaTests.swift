import Foundation
import GeoSpendTestSupport
import GRDB
@testable import GeoSpendSpatiaLite
import Testing

/// A new file runs `SquashedSchema`'s one script instead of every migration; these tests hold the
/// two to the same result. After a new migration, `scripts/squash-schema.sh` writes the script
/// again (it runs `squashedSchemaIsCurrent` with GEOSPEND_WRITE_SQUASHED_SCHEMA=1).
@Suite struct SquashedSchemaTests {
    /// The squashed script covers every migration: otherwise new files pay for the ones it lacks.
    @Test func squashedSchemaIsCurrent() throws {
        let scratch = Scratch()
        let migrated = try SchemaFile.migrated(at: scratch.path("migrated.sqlite"))
        if ProcessInfo.processInfo.environment["GEOSPEND_WRITE_SQUASHED_SCHEMA"] == "1" {
            let initialised = try SchemaFile.initialised(at: scratch.path("initialised.sqlite"))
            let script = try SchemaFile.squash(migrated, over: initialised)
            try SchemaFile.source(versions: Schema.versions, sql: script)
                .write(toFile: Repo.path("Sources/GeoSpendSpatiaLite/SquashedSchema.swift"), atomically: true, encoding: .utf8)
            return
        }
        #expect(SquashedSchema.versions == Schema.versions, "run scripts/squash-schema.sh after adding a migration")
    }

    /// A new file (the store's own first open) holds exactly what migrating an initialised file
    /// one migration at a time leaves: every table, index, trigger and view with its SQL, every
    /// row of every table (SpatiaLite's metadata, the migrations' records) and the pragmas.
    @Test func aNewFileEqualsTheMigratedOne() throws {
        let scratch = Scratch()
        let migrated = try SchemaFile.migrated(at: scratch.path("migrated.sqlite"))
        _ = try scratch.store("new.sqlite")
        let new = try DatabaseQueue(path: scratch.path("new.sqlite"), configuration: SchemaFile.configuration)
        let expected = try migrated.read(SchemaFile.contents), found = try new.read(SchemaFile.contents)
        #expect(found.count == expected.count)
        // Line by line, so a failure names what differs.
        for line in Set(expected).symmetricDifference(found).sorted().prefix(20) {
            Issue.record("\(expected.contains(line) ? "missing" : "extra"): \(line)")
        }
    }

    /// The dump sees a difference: a dropped index, an extra row, a changed value, a pragma.
    @Test func theComparisonSeesADifference() throws {
        let scratch = Scratch()
        let migrated = try SchemaFile.migrated(at: scratch.path("migrated.sqlite"))
        let before = try migrated.read(SchemaFile.contents)
        for change in [
            "DROP INDEX stores_kind", "INSERT INTO grdb_migrations VALUES ('v99: later')", "PRAGMA user_version = 7",
            "UPDATE geometry_columns_statistics SET row_count = 1 WHERE f_table_name = 'stores'",
        ] {
            let copy = scratch.path("copy-\(UUID().uuidString).sqlite")
            try migrated.backup(to: try DatabaseQueue(path: copy, configuration: SchemaFile.configuration))
            let changed = try DatabaseQueue(path: copy, configuration: SchemaFile.configuration)
            try changed.writeWithoutTransaction { db in try db.execute(sql: change) }
            #expect(try changed.read(SchemaFile.contents) != before, "\(change)")
        }
    }
}

struct SquashError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// Files for the comparison, and the dump both sides are compared by.
enum SchemaFile {
    static var configuration: Configuration {
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.prepareDatabase { db in try SpatiaLiteExtension.load(into: db) }
        return config
    }

    /// SpatiaLite's metadata as a new file starts with, and nothing else.
    static func initialised(at path: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in _ = try SpatiaLiteExtension.quietly { try Int.fetchOne(db, sql: "SELECT InitSpatialMetadata(0, 'WGS84')") } }
        return queue
    }

    /// An initialised file with every migration applied one after another, as an older file
    /// would be brought up to date.
    static func migrated(at path: String) throws -> DatabaseQueue {
        let queue = try initialised(at: path)
        try queue.write { db in try SpatiaLiteExtension.quietly { try apply(Schema.migrations, db) } }
        return queue
    }

    /// `migrations` one after another, each recorded as `Schema.applyPending` records it.
    static func apply(_ migrations: some Sequence<Schema.Migration>, _ db: Database) throws {
        try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        for migration in migrations {
            try migration.apply(db)
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.identifier])
        }
    }

    /// Every schema object with its SQL, every row of every table (`quote`d), and the pragmas a
    /// script could set, one line each, sorted: two files with the same lines hold the same.
    static func contents(_ db: Database) throws -> [String] {
        var lines = try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master").map { row in
            "object \(row[0] as String) \(row[1] as String) on \(row[2] as String): \(row[3] as String? ?? "-")"
        }
        for pragma in ["user_version", "application_id", "page_size", "auto_vacuum", "encoding"] {
            lines.append("pragma \(pragma) = \(try String.fetchOne(db, sql: "PRAGMA \(pragma)") ?? "-")")
        }
        for table in try tables(db) {
            lines += try rows(of: table, db).map { "row \(table): \($0)" }
        }
        return lines.sorted()
    }

    /// Tables with rows a script could differ in: SQLite's virtual tables hold none of their own,
    /// and sqlite_schema's rows are the objects above (with page numbers, which may differ).
    static func tables(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'shadow') AND name <> 'sqlite_schema' ORDER BY name
            """)
    }

    /// Columns that say when and by which library a row was written: dumped as the expression
    /// that writes them (the same text in any file), so the script writes them anew.
    static let volatile = [
        "spatialite_history": [
            "timestamp": "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')", "ver_sqlite": "sqlite_version()", "ver_splite": "spatialite_version()",
        ],
    ]

    /// Each row as the values of an INSERT: SQL literals, or the expression for a volatile column.
    static func rows(of table: String, _ db: Database) throws -> [String] {
        let columns = try db.columns(in: table).map { column in
            volatile[table]?[column.name].map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "quote(\(column.name.quotedDatabaseIdentifier))"
        }
        return try String.fetchAll(db, sql: "SELECT \(columns.joined(separator: " || ', ' || ")) FROM \(table.quotedDatabaseIdentifier)")
    }

    /// The script that turns `initialised` into `migrated`: the objects the migrations created
    /// (tables first, in creation order, then indexes, views and triggers; SQLite makes a
    /// virtual table's shadow tables and a table's automatic indexes itself), then the rows they
    /// added (none may be gone: the script only adds).
    static func squash(_ migrated: DatabaseQueue, over initialised: DatabaseQueue) throws -> String {
        let before = try initialised.read { db in
            (objects: Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master")), rows: try Dictionary(uniqueKeysWithValues: tables(db).map { ($0, Set(try rows(of: $0, db))) }))
        }
        return try migrated.read { db in
            let shadows = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'"))
            let created = try Row.fetchAll(db, sql: """
                SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, rowid
                """).filter { !before.objects.contains($0["name"]) && !shadows.contains($0["name"]) }
            var script = created.map { ($0["sql"] as String) + ";" }
            let tableOrder = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
            for table in tableOrder where !shadows.contains(table) && !table.hasPrefix("sqlite_") {
                let now = try rows(of: table, db), was = before.rows[table] ?? []
                if let gone = was.subtracting(now).first {
                    throw SquashError(reason: "a migration removed rows of \(table) (\(gone)): a script that only adds cannot")
                }
                for row in now where !was.contains(row) {
                    script.append("INSERT INTO \(table.quotedDatabaseIdentifier) VALUES (\(row));")
                }
            }
            return script.joined(separator: "\n")
        }
    }

    /// SquashedSchema.swift for `versions` and `sql`.
    static func source(versions: [String], sql: String) -> String {
        precondition(!sql.contains("\"\"\"#"), "the script cannot sit in a raw string literal")
        precondition(!versions.contains { $0.contains("\"") || $0.contains("\\") }, "a version cannot sit in a plain string literal")
        return """
            // Generated by scripts/squash-schema.sh from `Schema.migrations`; do not edit.
            // SquashedSchemaTests checks that it builds what the migrations build.

            /// The schema the migrations below build, as one script: a new file runs it instead of each
            /// migration (ALTER TABLE and table rebuilds make SQLite re-read the whole schema each time).
            enum SquashedSchema {
                static let versions: [String] = [
            \(versions.map { "        \"\($0)\"," }.joined(separator: "\n"))
                ]

                // Unindented: the script's lines are, and a literal's lines may not sit left of its end.
                static let sql = #\"\"\"
            \(sql)
            \"\"\"#
            }

            """
    }
}
