import GeoSpend
import Logging
import PostgresNIO

/// The writes of one write scope on PostgreSQL, a batch per round trip or two: the batch's
/// stored ids, stores, users and categories are looked up with one `= ANY($1)` query each
/// (less in an import: `learnStores`, `learnCategories`), the outcomes decided here row by row
/// with the file store's rules and order of checks, and the new rows sent with one `COPY …
/// FROM STDIN`, not waited for (`sendAhead`: the next batch is decided meanwhile). The
/// scope's transaction makes the whole import all or nothing.
final class PostGISWriter: ExpenseWriter {
    let connection: PostgresConnection
    let logger: Logger
    private var knownUsers: Set<ExactText> = []
    private var knownStores: [ExactText: Bool] = [:]
    /// Whether every store's id is in `knownStores` (`learnStores`), so one that is not is no
    /// store: nil until the stores were counted, false when there were too many to fetch.
    private var allStoresKnown: Bool?
    /// A batch naming this many stores not seen yet is an import's, and its next batches will
    /// name more: every id is fetched at once when the table holds at most `storesFetchedWhole`,
    /// instead of a lookup per batch (which waits for the COPY of the batch before).
    private static let manyUnknownStores = 1_000
    private static let storesFetchedWhole = 200_000
    /// Users this scope created: they have no category but those in `categoryIDs`.
    private var createdUsers: Set<ExactText> = []
    private var categoryIDs: [CategoryKey: Int64] = [:]
    /// Per currency, the sum of every stored amount, kept within `Int64` (read on first use).
    private var currencyTotals: [String: Int64]?

    private struct CategoryKey: Hashable {
        let user: ExactText
        let kind: String
        let fold: ExactText
    }

    /// What a first import set aside, to be rebuilt by `finish` (see `setAsideIfEmpty`).
    private var setAside: [String] = []
    private var checkedEmpty: Set<String> = []
    /// Per table that was empty when this scope first wrote to it (a first import): every row it
    /// holds is one of this scope's, so their ids and hashes are kept here instead of looked up
    /// per batch. On partitioned `expenses` that lookup probes each partition's (id, user_id)
    /// index: 35 lookups took 4.7 of a 200k-row import's 28 s, against 6.3 s of COPY (load 18).
    private var written: [String: [ExactText: Int64]] = [:]

    /// The users and days of the expenses inserted: the budget events the scope raises before it commits.
    private(set) var touched = TouchedDays()

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Rebuilds what `setAsideIfEmpty` dropped; the write scope calls it before COMMIT.
    func finish() throws {
        for statement in setAside { _ = try rows(PostgresQuery(unsafeSQL: statement)) }
        setAside = []
    }

    /// Into an empty table, rows go in much faster with its secondary indexes and foreign keys
    /// built once afterwards than kept up to date row by row (PostgreSQL's "Populating a
    /// Database"; measured in docs/POSTGIS.md: 100k expenses 11.2 s → about 3 s). So the first
    /// write into an empty table drops them and `finish` recreates them (the foreign keys are
    /// validated then, in one pass each), all inside the scope's transaction: a failure or a
    /// kill rolls the DDL back with the rows. The price: readers of that table wait for the
    /// first import to commit instead of seeing it empty. Unique keys stay.
    private func setAsideIfEmpty(_ table: String) throws {
        guard checkedEmpty.insert(table).inserted else { return }
        guard try rows(PostgresQuery(unsafeSQL: "SELECT NOT EXISTS (SELECT 1 FROM \(table))"))[0].decode(Bool.self) else { return }
        written[table] = [:]
        let keys = try rows(PostgresQuery(unsafeSQL: """
            SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = '\(table)'::regclass AND contype = 'f' ORDER BY conname
            """)).map { try $0.decode((String, String).self) }
        let indexes = try rows(PostgresQuery(unsafeSQL: """
            SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index AS x JOIN pg_class AS i ON i.oid = x.indexrelid
            WHERE x.indrelid = '\(table)'::regclass AND NOT x.indisunique ORDER BY i.relname
            """)).map { try $0.decode((String, String).self) }
        for (name, _) in keys { _ = try rows(PostgresQuery(unsafeSQL: "ALTER TABLE \(table) DROP CONSTRAINT \(name)")) }
        for (name, _) in indexes { _ = try rows(PostgresQuery(unsafeSQL: "DROP INDEX \(name)")) }
        // A partitioned table's index reads `ON ONLY expenses` (the parent alone); built without
        // ONLY it is built on every partition again, as the migration made it.
        let rebuilt = indexes.map { $0.1.replacingOccurrences(of: " ON ONLY ", with: " ON ") }
        setAside += rebuilt + keys.map { "ALTER TABLE \(table) ADD CONSTRAINT \($0.0) \($0.1)" }
    }

    private func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        let (connection, logger) = (self.connection, self.logger)
        return try waitFor(on: connection) { try await connection.query(query, logger: logger).collect() }
    }

    private func copy(_ table: String, _ columns: [String], _ text: CopyText) throws {
        try connection.copy(table, columns, text, logger: logger)
    }

    /// An expense's key in `written["expenses"]` and `storedExpenseHashes`: ids are unique per
    /// user. The user and the id joined by a NUL: no stored text holds one (`CopyText`), so two
    /// keys of stored rows never collide, and a row holding a NUL is refused anyway.
    private static func expenseKey(user: String, id: String) -> ExactText { ExactText(user + "\u{0}" + id) }

    /// The content hashes stored for these expenses' (user, id), beyond those in `written`.
    private func storedExpenseHashes(_ expenses: [Expense]) throws -> [ExactText: Int64] {
        if written["expenses"] != nil { return [:] }
        var b = PostgresBindings()
        b.append(expenses.map(\.userID))
        b.append(expenses.map(\.id))
        let found = try rows(PostgresQuery(
            unsafeSQL: """
                SELECT e.user_id, e.id, e.content_hash FROM expenses AS e
                JOIN unnest($1::text[], $2::text[]) AS k(u, x) ON e.user_id = k.u AND e.id = k.x
                """, binds: b))
        return Dictionary(
            try found.map { let (user, id, hash) = try $0.decode((String, String, Int64).self); return (Self.expenseKey(user: user, id: id), hash) },
            uniquingKeysWith: { a, _ in a })
    }

    /// The content hashes stored under `ids` in `table`, beyond those in `written`.
    private func storedHashes(_ table: String, _ ids: [String]) throws -> [ExactText: Int64] {
        if written[table] != nil { return [:] }
        let found = try rows(PostgresQuery(
            unsafeSQL: "SELECT id, content_hash FROM \(table) WHERE id = ANY($1)", binds: bindings(ids)))
        return Dictionary(try found.map { let (id, hash) = try $0.decode((String, Int64).self); return (ExactText(id), hash) },
                          uniquingKeysWith: { a, _ in a })
    }

    // MARK: Stores

    func insert(_ stores: [HashedRow<Store>]) throws -> [RowOutcome] {
        guard !stores.isEmpty else { return [] }
        try setAsideIfEmpty("stores")
        var stored = try storedHashes("stores", stores.map(\.record.id))
        var text = CopyText()
        let outcomes = stores.map { row -> RowOutcome in
            let s = row.record
            if let hash = stored[ExactText(s.id)] ?? written["stores"]?[ExactText(s.id)] { return Self.same(hash, row.contentHash, id: s.id) }
            if let column = CopyText.columnWithNUL([
                "id": s.id, "name": s.name, "kind": s.kind, "brand": s.brand, "street": s.street, "postcode": s.postcode,
                "city": s.city, "country": s.country, "source_id": s.sourceID,
            ]) { return Self.nul(column) }
            stored[ExactText(s.id)] = row.contentHash
            written["stores"]?[ExactText(s.id)] = row.contentHash
            knownStores[ExactText(s.id)] = true
            for field in [s.id, s.name, s.kind, s.brand, s.street, s.postcode, s.city, s.country, s.sourceID] { text.text(field) }
            text.double(s.coordinate.latitude); text.double(s.coordinate.longitude); text.integer(row.contentHash)
            text.endRow()
            return .inserted
        }
        try copy("stores", ["id", "name", "kind", "brand", "street", "postcode", "city", "country", "source_id", "lat", "lon", "content_hash"], text)
        return outcomes
    }

    // MARK: Expenses

    func insert(_ expenses: [HashedRow<Expense>], policy: InsertPolicy) throws -> [RowOutcome] {
        guard !expenses.isEmpty else { return [] }
        try learnStores(expenses.compactMap(\.record.storeID))
        if currencyTotals == nil {
            currencyTotals = Dictionary(uniqueKeysWithValues: try rows(
                "SELECT currency, SUM(amount_minor)::text FROM expenses GROUP BY currency"
            ).map { let (c, sum) = try $0.decode((String, String).self); return (c, Int64(sum)!) })
        }
        try setAsideIfEmpty("expenses")
        var stored = try storedExpenseHashes(expenses.map(\.record))
        func storedHash(_ key: ExactText) -> Int64? { stored[key] ?? written["expenses"]?[key] }
        // What the decisions below need from the table, fetched once per batch: the days of new
        // ids (their twins; a table that started empty has none) and the rows to rewrite.
        let twins = written["expenses"] == nil ? policy.duplicates : nil
        if let twins {
            let new = expenses.lazy.map(\.record).filter { storedHash(Self.expenseKey(user: $0.userID, id: $0.id)) == nil }
            try load(twins.missingDays(new), into: twins)
        }
        let changed = policy.updatesChanged
            ? expenses.filter { row in storedHash(Self.expenseKey(user: row.record.userID, id: row.record.id)).map { $0 != row.contentHash } ?? false }
            : []
        let olds = try storedForUpdate(changed.map(\.record))
        var fresh: [HashedRow<Expense>] = []
        var updates: [(row: HashedRow<Expense>, old: StoredForUpdate)] = []
        let outcomes = expenses.map { row -> RowOutcome in
            let e = row.record
            if let store = e.storeID, knownStores[ExactText(store)] != true {
                return .rejected(RowRejection(column: "store_id", reason: "\"\(store)\" is not a known store; import the stores first"))
            }
            let code = e.amount.currency.code
            // Ids are unique per user: another user's row of the same id is neither compared nor revealed.
            let key = Self.expenseKey(user: e.userID, id: e.id)
            if let hash = storedHash(key) {
                if hash == row.contentHash { return .unchanged }
                guard policy.updatesChanged, let old = olds[key] else { return .rejected(.changedContent(id: e.id)) }
                // The old amount leaves its total first (it was part of it: no overflow).
                var totals = currencyTotals!
                totals[old.currency, default: 0] -= old.amountMinor
                let (projected, overflow) = totals[code, default: 0].addingReportingOverflow(e.amount.minorUnits)
                if overflow { return .rejected(.totalOverflow(currency: code)) }
                if let column = CopyText.columnWithNUL(["title": e.title, "category": e.category, "merchant": e.merchant, "notes": e.notes]) {
                    return Self.nul(column)
                }
                totals[code] = projected
                currencyTotals = totals
                stored[key] = row.contentHash
                updates.append((row, old))
                return .updated
            }
            if let twin = twins?.take(e) { return .duplicate(of: twin) }
            let (projected, overflow) = currencyTotals![code, default: 0].addingReportingOverflow(e.amount.minorUnits)
            if overflow { return .rejected(.totalOverflow(currency: code)) }
            if let column = CopyText.columnWithNUL([
                "id": e.id, "user_id": e.userID, "title": e.title, "category": e.category, "merchant": e.merchant, "notes": e.notes,
            ]) { return Self.nul(column) }
            currencyTotals![code] = projected
            stored[key] = row.contentHash
            written["expenses"]?[key] = row.contentHash
            fresh.append(row)
            return .inserted
        }
        try update(updates)
        guard !fresh.isEmpty else { return outcomes }
        for row in fresh { touched.addInserted(row.record) }
        try learnUsers(fresh.map(\.record.userID))
        try learnCategories(fresh.map(\.record))
        var text = CopyText()
        for row in fresh {
            let e = row.record
            text.text(e.id); text.text(e.userID); text.text(e.kind.rawValue); text.integer(e.amount.minorUnits)
            text.text(e.amount.currency.code); text.text(e.occurredAt.text); text.integer(e.occurredAt.epochMilliseconds)
            text.integer(e.occurredAt.utcOffsetMinutes.map(Int64.init)); text.text(e.occurredAt.localDate); text.text(e.title)
            text.integer(e.category.map { categoryIDs[Self.key(e, $0)]! }); text.text(e.merchant)
            text.double(e.location?.coordinate.latitude); text.double(e.location?.coordinate.longitude)
            text.double(e.location?.accuracyMeters); text.text(e.storeID); text.text(e.notes); text.integer(row.contentHash)
            text.endRow()
        }
        try copy("expenses", [
            "id", "user_id", "kind", "amount_minor", "currency", "occurred_at", "occurred_ms", "utc_offset_min", "local_date", "title",
            "category_id", "merchant", "lat", "lon", "accuracy_m", "store_id", "notes", "content_hash",
        ], text)
        return outcomes
    }

    /// Hands `check` the rows stored on `days`, in one query.
    private func load(_ days: [DuplicateCheck.Day], into check: DuplicateCheck) throws {
        guard !days.isEmpty else { return }
        var found: [DuplicateCheck.Day: [DuplicateCheck.Stored]] = [:]
        for row in try rows("""
            SELECT e.user_id, e.local_date, e.id, e.kind, e.currency, e.amount_minor, COALESCE(e.merchant, e.title) FROM expenses AS e
            JOIN unnest(\(days.map(\.userID))::text[], \(days.map(\.localDate))::text[], \(days.map(\.utcMilliseconds.lowerBound))::int8[],
                \(days.map(\.utcMilliseconds.upperBound))::int8[]) AS d(u, day, lo, hi)
              ON e.user_id = d.u AND e.occurred_ms BETWEEN d.lo AND d.hi AND e.local_date = d.day
            """) {
            let (user, date, id, kind, code, minor, text) = try row.decode((String, String, String, String, String, Int64, String?).self)
            guard let kind = ExpenseKind(rawValue: kind), let currency = try? Currency(code: code) else { continue }
            found[DuplicateCheck.Day(userID: user, localDate: date), default: []].append(
                DuplicateCheck.Stored(id: id, kind: kind, amount: Money(minorUnits: minor, currency: currency), text: text))
        }
        for day in days { check.add(day, stored: found[day] ?? []) }
    }

    /// What a rewrite keeps or takes out of a stored row (`InsertPolicy.updatesChanged`).
    private struct StoredForUpdate {
        let amountMinor: Int64
        let currency: String
        let latitude: Double?, longitude: Double?, accuracy: Double?
        let storeID: String?
    }

    private func storedForUpdate(_ expenses: [Expense]) throws -> [ExactText: StoredForUpdate] {
        guard !expenses.isEmpty else { return [:] }
        var found: [ExactText: StoredForUpdate] = [:]
        for row in try rows("""
            SELECT e.user_id, e.id, e.amount_minor, e.currency, e.lat, e.lon, e.accuracy_m, e.store_id FROM expenses AS e
            JOIN unnest(\(expenses.map(\.userID))::text[], \(expenses.map(\.id))::text[]) AS k(u, x) ON e.user_id = k.u AND e.id = k.x
            """) {
            let (user, id, minor, code, lat, lon, accuracy, store) = try row.decode((String, String, Int64, String, Double?, Double?, Double?, String?).self)
            found[Self.expenseKey(user: user, id: id)] = StoredForUpdate(
                amountMinor: minor, currency: code, latitude: lat, longitude: lon, accuracy: accuracy, storeID: store)
        }
        return found
    }

    /// Rewrites stored rows with the file's fields, one statement each (rewrites are a
    /// statement's few corrections): a position or store the row does not give stays, with
    /// its provenance, as on the file (SpatiaLiteBulkWriter.update).
    private func update(_ updates: [(row: HashedRow<Expense>, old: StoredForUpdate)]) throws {
        guard !updates.isEmpty else { return }
        try learnCategories(updates.map(\.row.record))
        for (row, old) in updates {
            let e = row.record, t = e.occurredAt
            touched.add(e)  // a budget of its day may cross a threshold
            let keepsPosition = e.location == nil && old.latitude != nil
            let keepsStore = e.storeID == nil && old.storeID != nil
            let lat = keepsPosition ? old.latitude : e.location?.coordinate.latitude
            let lon = keepsPosition ? old.longitude : e.location?.coordinate.longitude
            let accuracy = keepsPosition ? old.accuracy : e.location?.accuracyMeters
            let categoryID = e.category.map { categoryIDs[Self.key(e, $0)]! }
            _ = try rows("""
                UPDATE expenses SET kind = \(e.kind.rawValue), amount_minor = \(e.amount.minorUnits), currency = \(e.amount.currency.code),
                    occurred_at = \(t.text), occurred_ms = \(t.epochMilliseconds), utc_offset_min = \(t.utcOffsetMinutes.map(Int32.init)),
                    local_date = \(t.localDate), title = \(e.title), category_id = \(categoryID), merchant = \(e.merchant),
                    lat = \(lat), lon = \(lon), accuracy_m = \(accuracy), store_id = \(keepsStore ? old.storeID : e.storeID),
                    notes = \(e.notes), content_hash = \(row.contentHash), updated_at = \(unescaped: PostGISStore.nowSQL),
                    position_source = CASE WHEN \(keepsPosition) THEN position_source END,
                    position_confidence = CASE WHEN \(keepsPosition) THEN position_confidence END,
                    store_inferred = store_inferred AND \(keepsStore)
                WHERE id = \(e.id) AND user_id = \(e.userID)
                """)
        }
    }

    /// Which of `ids` are stores, remembered for the rest of the scope.
    private func learnStores(_ ids: [String]) throws {
        let unknown = Array(Set(ids.map(ExactText.init)).filter { knownStores[$0] == nil })
        guard !unknown.isEmpty, allStoresKnown != true else { return }
        if unknown.count >= Self.manyUnknownStores && allStoresKnown == nil {
            let limit = Self.storesFetchedWhole
            allStoresKnown = try rows("SELECT count(*) <= \(limit) FROM (SELECT 1 FROM stores LIMIT \(limit + 1)) AS s")[0].decode(Bool.self)
            if allStoresKnown == true {
                for row in try rows("SELECT id FROM stores") { knownStores[ExactText(try row.decode(String.self))] = true }
                return
            }
        }
        for id in unknown { knownStores[id] = false }
        for row in try rows("SELECT id FROM stores WHERE id = ANY(\(unknown.map(\.text)))") {
            knownStores[ExactText(try row.decode(String.self))] = true
        }
    }

    /// Creates users on first sight, each with the default categories, as the file does.
    private func learnUsers(_ ids: [String]) throws {
        var seen = Set<ExactText>()
        let unknown = ids.filter { !knownUsers.contains(ExactText($0)) && seen.insert(ExactText($0)).inserted }
        guard !unknown.isEmpty else { return }
        let created = try rows("""
            INSERT INTO users (id) SELECT u FROM unnest(\(unknown)::text[]) WITH ORDINALITY AS t(u, n) ORDER BY n
            ON CONFLICT (id) DO NOTHING RETURNING id
            """).map { try $0.decode(String.self) }
        knownUsers.formUnion(unknown.map(ExactText.init))
        guard !created.isEmpty else { return }
        createdUsers.formUnion(created.map(ExactText.init))
        let defaults = Category.defaults
        try rememberCategories("""
            INSERT INTO categories (user_id, kind, name, is_default, icon, color)
            SELECT u, d.kind, d.name, true, NULLIF(d.icon, ''), NULLIF(d.color, '')
            FROM unnest(\(created)::text[]) WITH ORDINALITY AS u(u, n)
            CROSS JOIN unnest(\(defaults.map(\.kind.rawValue))::text[], \(defaults.map(\.name))::text[],
                \(defaults.map { Category.defaultLooks[$0]?.icon ?? "" })::text[], \(defaults.map { Category.defaultLooks[$0]?.color ?? "" })::text[])
                WITH ORDINALITY AS d(kind, name, icon, color, m)
            ORDER BY u.n, d.m
            RETURNING user_id, kind, name_fold, id
            """)
    }

    private static func key(_ e: Expense, _ name: String) -> CategoryKey {
        CategoryKey(user: ExactText(e.userID), kind: Category.kind(for: e.kind).rawValue, fold: ExactText(PostGISRows.asciiFolded(name)))
    }

    /// The categories the expenses name, created per user when new with the first spelling
    /// met (a user's `food` is their `Food` when that exists: ASCII case folded, as on the file).
    private func learnCategories(_ expenses: [Expense]) throws {
        var wanted: [CategoryKey: String] = [:]
        var order: [CategoryKey] = []
        for e in expenses {
            guard let name = e.category else { continue }
            let k = Self.key(e, name)
            if categoryIDs[k] == nil, wanted[k] == nil { wanted[k] = name; order.append(k) }
        }
        guard !order.isEmpty else { return }
        // A user this scope created has no categories but those it made, all in `categoryIDs`.
        let asked = order.filter { !createdUsers.contains($0.user) }
        if !asked.isEmpty {
            try rememberCategories("""
                SELECT c.user_id, c.kind, c.name_fold, c.id FROM categories AS c
                JOIN unnest(\(asked.map(\.user.text))::text[], \(asked.map(\.kind))::text[], \(asked.map(\.fold.text))::text[]) AS w(u, k, f)
                  ON c.user_id = w.u AND c.kind = w.k AND c.name_fold = w.f
                """)
        }
        let missing = order.filter { categoryIDs[$0] == nil }
        guard !missing.isEmpty else { return }
        try rememberCategories("""
            INSERT INTO categories (user_id, kind, name)
            SELECT u, k, n FROM unnest(\(missing.map(\.user.text))::text[], \(missing.map(\.kind))::text[], \(missing.map { wanted[$0]! })::text[])
                WITH ORDINALITY AS w(u, k, n, i) ORDER BY i
            RETURNING user_id, kind, name_fold, id
            """)
    }

    /// Keeps the ids of the categories `query` returns (user_id, kind, name_fold, id).
    private func rememberCategories(_ query: PostgresQuery) throws {
        for row in try rows(query) {
            let (u, k, f, id) = try row.decode((String, String, String, Int64).self)
            categoryIDs[CategoryKey(user: ExactText(u), kind: k, fold: ExactText(f))] = id
        }
    }

    // MARK: Links

    /// Links expenses that have no store yet, in order: a later link of the same expense finds
    /// it linked. An unknown store throws, as the file's foreign key does.
    func assignStores(_ links: [StoreLink]) throws -> [Bool] {
        guard !links.isEmpty else { return [] }
        try learnStores(links.map(\.storeID))
        if let unknown = links.first(where: { knownStores[ExactText($0.storeID)] != true }) {
            throw RowRejection(column: "store_id", reason: "\"\(unknown.storeID)\" is not a known store")
        }
        // An expense is its user's id: another user's expense of the same id is never linked.
        var seen = Set<ExactText>()
        let firsts = links.indices.filter { seen.insert(Self.expenseKey(user: links[$0].userID, id: links[$0].expenseID)).inserted }
        let linked = Set(try rows("""
            UPDATE expenses AS e SET store_id = l.s
            FROM unnest(\(firsts.map { links[$0].userID })::text[], \(firsts.map { links[$0].expenseID })::text[],
                \(firsts.map { links[$0].storeID })::text[]) AS l(u, x, s)
            WHERE e.user_id = l.u AND e.id = l.x AND e.store_id IS NULL
            RETURNING e.user_id, e.id
            """).map { let (u, x) = try $0.decode((String, String).self); return Self.expenseKey(user: u, id: x) })
        let firstSet = Set(firsts)
        return links.indices.map {
            firstSet.contains($0) && linked.contains(Self.expenseKey(user: links[$0].userID, id: links[$0].expenseID))
        }
    }

    func periods(ofUser userID: String) throws -> [Period] {
        let user = Identity.normalized(userID)
        return try rows("""
            SELECT p.number, p.user_id, p.name, p.start_date, p.end_date,
                (SELECT count(*) FROM expenses AS e WHERE e.user_id = p.user_id AND e.period_id = p.pk)
            FROM periods AS p WHERE p.user_id = \(user) ORDER BY p.number
            """).map { row in
            let (id, userID, name, start, end, n) = try row.decode((Int64, String, String, String, String?, Int64).self)
            return Period(id: id, userID: userID, name: name, start: start, end: end, expenses: Int(n))
        }
    }

    func assignPeriods(_ links: [PeriodLink]) throws {
        guard !links.isEmpty else { return }
        // One statement per batch; the last link of an expense wins, as row by row.
        var last: [[String]: Int] = [:]
        for (i, link) in links.enumerated() { last[[link.userID, link.expenseID]] = i }
        let kept = last.values.sorted().map { links[$0] }
        _ = try rows("""
            UPDATE expenses AS e SET period_id = p.pk
            FROM unnest(\(kept.map(\.userID))::text[], \(kept.map(\.expenseID))::text[], \(kept.map(\.period))::bigint[]) AS l(u, x, n)
            JOIN periods AS p ON p.user_id = l.u AND p.number = l.n
            WHERE e.user_id = l.u AND e.id = l.x
            """)
    }

    // MARK: Outcomes

    /// For a store id already stored: the same content is a no-op, other content refused.
    private static func same(_ stored: Int64, _ given: Int64, id: String) -> RowOutcome {
        stored == given
            ? .unchanged
            : .rejected(RowRejection(
                column: "id", reason: "\"\(id)\" is already stored with different content; ids are stable, so give changed rows new ids"))
    }

    private static func nul(_ column: String) -> RowOutcome {
        .rejected(RowRejection(column: column, reason: "contains a NUL character (U+0000), which PostgreSQL cannot store; remove it"))
    }
}

private func bindings(_ values: [String]) -> PostgresBindings {
    var b = PostgresBindings()
    b.append(values)
    return b
}
