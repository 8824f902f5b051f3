import Foundation
import GeoSpend
import GRDB

/// Text stored before the identity rule (`Identity`: NFC where it comes in, bytes compared).
/// A file written by an earlier GeoSpend may hold ids and names in another normal form (NFD,
/// as macOS file names and some keyboards give them): `--user José` (NFC'd) no longer finds
/// that user, `users delete` says "no user", and a re-import of the same data clashes with the
/// stored rows ("already stored with different content": the content hash covers the text).
/// `doctor` counts such text (`identityFindings`) and `doctor --repair` rewrites it in NFC
/// (`repairIdentity`) unless the NFC form is already another row: those pairs are reported
/// and left, since merging two users or two expenses is the user's decision.
extension SpatiaLiteStore {
    /// `geospend_nfc(x)`: `x` in NFC when it is text, else `x` itself. Registered on every
    /// connection so the checks run in SQL; never used in the schema (triggers, indexes, CHECKs),
    /// so QGIS, GDAL and `spatialite`, which lack it, still open and write the file.
    static let nfcFunction = DatabaseFunction("geospend_nfc", argumentCount: 1, pure: true) { values in
        if case .string(let text) = values[0].storage { return Identity.normalized(text) }
        return values[0]
    }

    /// Key columns: ids and names compared byte for byte (unique, or what `--user`, `--store`
    /// and `--category` match). Their children (`expenses.user_id`, `categories.user_id`,
    /// `expenses.store_id`) follow their parent's value.
    static let identityColumns: [(table: String, column: String, label: String)] = [
        ("users", "id", "user ids"), ("stores", "id", "store ids"), ("expenses", "id", "expense ids"),
        ("categories", "name", "category names"),
    ]

    /// Free text the importer also stores in NFC; part of the content hashes (except display names),
    /// so a re-import of the same rows clashed with them too. `stores.source_id` is GeoSpend's
    /// own ASCII (`osm:node/…`) and is hashed as stored, so it stays out.
    static let otherTextColumns: [(table: String, columns: [String])] = [
        ("users", ["display_name"]),
        ("stores", ["name", "kind", "brand", "street", "postcode", "city", "country"]),
        ("expenses", ["title", "merchant", "notes"]),
    ]

    /// SQL true when any of `columns` (of table alias `alias`) is not in NFC.
    static func notNFC(_ columns: [String], alias: String? = nil) -> String {
        columns.map { c in
            let name = alias.map { "\($0).\(c)" } ?? c
            return "\(name) != geospend_nfc(\(name))"
        }.joined(separator: " OR ")
    }

    /// What `doctor` reports: counts of key and other text not in NFC, and the keys whose NFC
    /// form is stored as another row.
    struct IdentityFindings {
        var keys: [(label: String, count: Int)] = []
        var otherText = 0
        var clashes: [IdentityClash] = []
        var total: Int { keys.reduce(0) { $0 + $1.count } + otherText }
    }

    /// A key stored in two normal forms: `stored` (not NFC) and its NFC form, another row.
    struct IdentityClash: Equatable {
        var what: String  // user, store, expense, category
        var stored: String
        var owner: String?  // a category's user

        /// The values as stored: whoever shows the line escapes them once for its format
        /// (`OutputEscaping.visible` in doctor's table; JSON as data). The other form's non-ASCII
        /// code points are spelled out, since the two forms look alike on screen.
        var description: String {
            let codePoints = stored.unicodeScalars.filter { !$0.isASCII }.prefix(8)
                .map { String(format: "U+%04X", $0.value) }
            return "\(what) \"\(Identity.normalized(stored))\"\(owner.map { " of user \"\(Identity.normalized($0))\"" } ?? "")"
                + " is stored twice, in NFC and as \"\(stored)\" (non-ASCII code points \(codePoints.joined(separator: " ")))"
        }
    }

    static func identityFindings(_ db: Database) throws -> IdentityFindings {
        var f = IdentityFindings()
        for (table, column, label) in identityColumns {
            let n = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(notNFC([column]))") ?? 0
            if n > 0 { f.keys.append((label, n)) }
        }
        for (table, columns) in otherTextColumns {
            f.otherText += try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(notNFC(columns))") ?? 0
        }
        for (table, what) in [("users", "user"), ("stores", "store")] {
            for id in try String.fetchAll(db, sql: """
                SELECT t.id FROM \(table) AS t WHERE \(notNFC(["id"], alias: "t"))
                    AND EXISTS (SELECT 1 FROM \(table) AS o WHERE o.id = geospend_nfc(t.id))
                ORDER BY t.id
                """) {
                f.clashes.append(IdentityClash(what: what, stored: id))
            }
        }
        // Expense ids are unique per user (v17): a clash is with the same user's row.
        for row in try Row.fetchAll(db, sql: """
            SELECT t.id, t.user_id FROM expenses AS t WHERE \(notNFC(["id"], alias: "t"))
                AND EXISTS (SELECT 1 FROM expenses AS o WHERE o.user_id = t.user_id AND o.id = geospend_nfc(t.id))
            ORDER BY t.user_id, t.id
            """) {
            f.clashes.append(IdentityClash(what: "expense", stored: row[0], owner: row[1]))
        }
        for row in try Row.fetchAll(db, sql: """
            SELECT c.name, c.user_id FROM categories AS c WHERE \(notNFC(["name"], alias: "c"))
                AND EXISTS (SELECT 1 FROM categories AS o WHERE o.user_id = c.user_id AND o.kind = c.kind
                    AND o.name = geospend_nfc(c.name) COLLATE NOCASE AND o.id != c.id)
            ORDER BY c.user_id, c.name
            """) {
            f.clashes.append(IdentityClash(what: "category", stored: row[0], owner: row[1]))
        }
        return f
    }

    /// The `doctor` line for `findings`: ok, or what is wrong and what to do.
    static func identityDetail(_ f: IdentityFindings) -> (Bool, String) {
        guard f.total > 0 else { return (true, "ids and names in NFC") }
        var parts = f.keys.map { "\($0.count) \($0.count == 1 ? String($0.label.dropLast()) : $0.label)" }
        if f.otherText > 0 { parts.append("\(f.otherText) rows of other text (names, titles, notes)") }
        var detail = "not in Unicode NFC (written by an earlier GeoSpend): " + parts.joined(separator: ", ")
            + "; --user and re-imports do not match them"
        let fixable = f.total - f.clashes.count
        if fixable > 0 { detail += "; --repair rewrites them in NFC" }
        if !f.clashes.isEmpty {
            detail += ". " + f.clashes.prefix(5).map(\.description).joined(separator: "; ")
                + (f.clashes.count > 5 ? "; and \(f.clashes.count - 5) more" : "") + ": " + clashAdvice
        }
        return (false, detail)
    }

    static let clashAdvice = "--repair leaves these alone (merging is your decision): `geospend users export` the user stored "
        + "in NFC to a file, `users delete` it, run `doctor --repair` again (the other form becomes NFC), then import the "
        + "export's expenses (`jq -c '.expenses[]' FILE > FILE.jsonl`, `geospend import expenses FILE.jsonl`)"

    /// Rewrites every key and text not in NFC, in the caller's transaction; keys whose NFC form is
    /// another row stay as they are. Foreign keys have no `ON UPDATE CASCADE`, so a renamed parent's
    /// children are renamed with it, checked at commit (`defer_foreign_keys`). Content hashes of the
    /// rows touched are recomputed from the rewritten row, when the old one reproduced its stored
    /// hash (a category name the file spelled in another ASCII case does not: that hash stays).
    /// - Returns: what was done, one line per action.
    static func repairIdentity(_ db: Database) throws -> [String] {
        let before = try identityFindings(db)
        guard before.total > 0 else { return [] }
        try db.execute(sql: "PRAGMA defer_foreign_keys = ON")  // reset by SQLite at commit
        // The rows whose hash covers changed text, and whether their stored hash is reproducible.
        let expenseSQL = """
            SELECT \(StoredRows.expenseColumns), e.content_hash, e.pk FROM expenses AS e LEFT JOIN categories AS c ON c.id = e.category_id
            """
        var expenseHashes: [(pk: Int64, reproducible: Bool)] = []
        let expenses = RawStatement(try db.cachedStatement(sql: expenseSQL + " WHERE " + notNFC(
            ["id", "user_id", "title", "merchant", "notes", "store_id"], alias: "e") + " OR " + notNFC(["name"], alias: "c")))
        while try expenses.step(db) {
            expenseHashes.append((expenses.int64(18), try StoredRows.decodeExpense(expenses).contentHash == expenses.int64(17)))
        }
        expenses.reset()  // GRDB's cached statements: done with, not left mid-step
        let storeSQL = "SELECT \(StoredRows.storeColumns), s.content_hash, s.pk FROM stores AS s"
        var storeHashes: [(pk: Int64, reproducible: Bool)] = []
        let stores = RawStatement(try db.cachedStatement(sql: storeSQL + " WHERE " + notNFC(
            ["id", "name", "kind", "brand", "street", "postcode", "city", "country"], alias: "s")))
        while try stores.step(db) { storeHashes.append((stores.int64(12), StoredRows.decodeStore(stores).contentHash == stores.int64(11))) }
        stores.reset()

        var renamed: [String: Int] = [:]
        var clashes: [IdentityClash] = []
        /// Renames key `old` of `table` (row `pk`) and the children's references, unless taken.
        func rename(_ table: String, _ what: String, old: String, children: [(String, String)]) throws {
            let new = Identity.normalized(old)
            guard try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE id = ?)", arguments: [new]) ?? false) else {
                clashes.append(IdentityClash(what: what, stored: old))
                return
            }
            try db.execute(sql: "UPDATE \(table) SET id = ? WHERE id = ?", arguments: [new, old])
            for (child, column) in children {
                try db.execute(sql: "UPDATE \(child) SET \(column) = ? WHERE \(column) = ?", arguments: [new, old])
            }
            renamed[what, default: 0] += 1
        }
        for id in try String.fetchAll(db, sql: "SELECT id FROM users WHERE \(notNFC(["id"]))") {
            try rename("users", "user", old: id, children: [("categories", "user_id"), ("expenses", "user_id"), ("map_rollups", "user_id")])
        }
        for id in try String.fetchAll(db, sql: "SELECT id FROM stores WHERE \(notNFC(["id"]))") {
            try rename("stores", "store", old: id, children: [("expenses", "store_id")])
        }
        // After the users; expense ids are unique per user (v17), so one clashes with its own
        // user's rows only.
        for row in try Row.fetchAll(db, sql: "SELECT pk, id, user_id FROM expenses WHERE \(notNFC(["id"]))") {
            let (pk, id, user): (Int64, String, String) = (row[0], row[1], row[2])
            let new = Identity.normalized(id)
            let taken = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM expenses WHERE user_id = ? AND id = ?)", arguments: [user, new]) ?? false
            if taken {
                clashes.append(IdentityClash(what: "expense", stored: id, owner: user))
            } else {
                try db.execute(sql: "UPDATE expenses SET id = ? WHERE pk = ?", arguments: [new, pk])
                renamed["expense", default: 0] += 1
            }
        }
        // After the users: a category clashes with its own user's other categories only.
        for row in try Row.fetchAll(db, sql: "SELECT id, user_id, kind, name FROM categories WHERE \(notNFC(["name"]))") {
            let (id, user, kind, name): (Int64, String, String, String) = (row[0], row[1], row[2], row[3])
            let taken = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM categories WHERE user_id = ? AND kind = ? AND name = ? COLLATE NOCASE AND id != ?)
                """, arguments: [user, kind, Identity.normalized(name), id]) ?? false
            if taken {
                clashes.append(IdentityClash(what: "category", stored: name, owner: user))
            } else {
                try db.execute(sql: "UPDATE categories SET name = ? WHERE id = ?", arguments: [Identity.normalized(name), id])
                renamed["category", default: 0] += 1
            }
        }
        var otherText = 0
        for (table, columns) in otherTextColumns {
            try db.execute(sql: "UPDATE \(table) SET \(columns.map { "\($0) = geospend_nfc(\($0))" }.joined(separator: ", ")) WHERE \(notNFC(columns))")
            otherText += db.changesCount
        }

        // Hashes of the rewritten rows, as an import of the same data in NFC computes them.
        var rehashed = 0
        var kept = 0
        // Reads each row marked reproducible by `select` (its pk as ?1) and stores `hash` of it.
        func rehash(_ rows: [(pk: Int64, reproducible: Bool)], table: String, select: String, hash: (RawStatement) throws -> Int64) throws {
            let byPK = RawStatement(try db.cachedStatement(sql: select))
            for (pk, reproducible) in rows {
                guard reproducible else { kept += 1; continue }
                byPK.reset()
                byPK.bind(1, pk)
                guard try byPK.step(db) else { continue }
                let value = try hash(byPK)
                byPK.reset()
                try db.execute(sql: "UPDATE \(table) SET content_hash = ? WHERE pk = ?", arguments: [value, pk])
                rehashed += 1
            }
        }
        try rehash(expenseHashes, table: "expenses", select: expenseSQL + " WHERE e.pk = ?") { row in
            var expense = try StoredRows.decodeExpense(row)
            expense.category = expense.category.map(Identity.normalized)
            return expense.contentHash
        }
        try rehash(storeHashes, table: "stores", select: storeSQL + " WHERE s.pk = ?") { StoredRows.decodeStore($0).contentHash }

        var done: [String] = []
        let counts = ["user", "store", "expense", "category"].compactMap { what in
            renamed[what].map { "\($0) \(what == "category" ? ($0 == 1 ? "category name" : "category names") : $0 == 1 ? "\(what) id" : "\(what) ids")" }
        }
        if !counts.isEmpty || otherText > 0 {
            done.append("rewrote in Unicode NFC: " + (counts + (otherText > 0 ? ["\(otherText) rows of other text"] : [])).joined(separator: ", ")
                + " (with the rows that refer to them); recomputed \(rehashed) content hashes")
        }
        if kept > 0 {
            done.append("kept the content hash of \(kept) rows whose stored hash their text does not reproduce "
                + "(changed outside GeoSpend, or a category the imported file spelled in another case): a re-import of them says \"different content\"")
        }
        if !clashes.isEmpty {
            done.append("left alone, their NFC form is another row: " + clashes.prefix(5).map(\.description).joined(separator: "; ")
                + (clashes.count > 5 ? "; and \(clashes.count - 5) more" : "") + ". " + clashAdvice)
        }
        return done
    }
}
