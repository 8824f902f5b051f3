/// Correcting and deleting one price record (`geospend prices edit|delete`, `PATCH`/`DELETE
/// /api/v1/prices/{id}`, issue 38). A record is its user's: another user's id is "no such
/// record", like a missing one, so ids reveal nothing.
///
/// What an edit may change: the price (in the record's currency unless `currency` is given), the
/// store, the recorded time, the quantity and the unit. The product, the source and the import's
/// content hash stay: importing the original file again is still a no-op, so a correction is not
/// undone by a re-import. Outliers are not stored: `prices history` flags them when it reads
/// (`PriceHistory`), so a corrected or deleted price moves the median and MAD at once.
public enum PriceCorrection {
    public typealias Store = PriceStore & ExpenseStore & StoreChoiceStore

    /// What a record keeps after an edit, all given (the edit merges the old record first).
    public struct Fields: Sendable, Hashable {
        public var price: Money
        public var storeID: String
        public var recordedAt: Timestamp
        public var quantity: Double
        public var unit: PriceUnit

        public init(price: Money, storeID: String, recordedAt: Timestamp, quantity: Double, unit: PriceUnit) {
            self.price = price
            self.storeID = storeID
            self.recordedAt = recordedAt
            self.quantity = quantity
            self.unit = unit
        }

        public init(of record: PriceRecord) {
            self.init(price: record.price, storeID: record.storeID, recordedAt: record.recordedAt, quantity: record.quantity, unit: record.unit)
        }
    }

    /// The keys a body or the options may give (the import's column names, `store` for `--store`).
    public static let keys: Set<String> = ["price", "currency", "store", "at", "quantity", "unit"]

    /// The option a key comes from, for messages.
    public static func option(_ key: String) -> String { "--" + key }

    /// The user's record `id`, or nil.
    public static func record(id: Int64, user: String, store: some PriceStore) async throws -> PriceRecord? {
        var query = PriceQuery(userID: Identity.normalized(user))
        query.recordID = id
        return try await store.priceRecords(query).first
    }

    /// Changes what `given` names of the user's record `id`.
    /// - Throws: `UsageError` for no such record (`noRecord`), nothing to change, a bad value or
    ///   an unknown store.
    public static func edit(id: Int64, _ given: [String: String], user: String, store: some Store) async throws -> PriceRecord {
        let user = Identity.normalized(user)
        if let unknown = given.keys.filter({ !keys.contains($0) }).sorted().first {
            throw UsageError("\(ValueError.quote(unknown)) is not something a price record edit changes; give \(keys.sorted().joined(separator: ", "))")
        }
        guard !given.isEmpty else { throw UsageError("nothing to change: give --price, --store, --at, --quantity or --unit") }
        guard let old = try await record(id: id, user: user, store: store) else { throw noRecord(id, user: user) }
        let fields = try merged(old, given)
        // The store as the user sees it: their own `mine-N` or the registry's (another user's is none).
        if fields.storeID != old.storeID, try await store.store(userID: user, id: fields.storeID) == nil {
            throw UsageError(
                "--store \(ValueError.quote(fields.storeID)): no such store; find its id with `geospend nearest-stores --lat … --lon …` or `geospend stores list`")
        }
        guard let updated = try await store.updatePriceRecord(userID: user, id: id, fields) else { throw noRecord(id, user: user) }
        return updated
    }

    /// The old record with `given` applied, every value checked as `prices import` checks it.
    public static func merged(_ old: PriceRecord, _ given: [String: String]) throws -> Fields {
        var f = Fields(of: old)
        for key in ["price", "currency", "store", "at", "quantity", "unit"] where given[key]?.isEmpty == true {
            throw UsageError("\(option(key)) cannot be unset: every price record has one")
        }
        var currency = old.price.currency
        if let code = given["currency"] {
            do { currency = try Currency(code: code) } catch { throw UsageError("--currency: \(error)") }
        }
        if let text = given["price"] {
            do { f.price = try Money(parsing: text, currency: currency) } catch { throw UsageError("--price: \(error)") }
            guard f.price.minorUnits > 0 else { throw UsageError("--price: \(ValueError.quote(text)) is not above 0; a price record's price is what was paid") }
        } else if currency != old.price.currency {
            throw UsageError("--currency without --price: give the price in \(currency.code) too (--price 1.29 --currency \(currency.code))")
        }
        if let id = given["store"] { f.storeID = id }
        if let text = given["at"] {
            do { f.recordedAt = try Timestamp(parsing: text) } catch { throw UsageError("--at: \(error)") }
        }
        if let text = given["quantity"] {
            let q: Double
            do { q = try parseStrictDouble(text.replacingOccurrences(of: ",", with: ".")) } catch { throw UsageError("--quantity: \(error)") }
            guard q > 0, q.isFinite else { throw UsageError("--quantity: \(ValueError.quote(text)) is not above 0; a quantity is how much the price is for") }
            f.quantity = q
        }
        if let text = given["unit"] {
            do { f.unit = try PriceUnit(parsing: text) } catch { throw UsageError("--unit: \(error)") }
        }
        return f
    }

    /// Deletes the user's record `id`. - Throws: `noRecord` when there is none.
    public static func delete(id: Int64, user: String, store: some PriceStore) async throws {
        let user = Identity.normalized(user)
        guard try await store.deletePriceRecord(userID: user, id: id) else { throw noRecord(id, user: user) }
    }

    public static func noRecord(_ id: Int64, user: String) -> UsageError {
        let u = OutputEscaping.visible(user)
        return UsageError("no price record \(id) of user \"\(u)\"; `geospend prices list --user \(u)` lists them with their ids")
    }
}
