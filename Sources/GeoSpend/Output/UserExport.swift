/// `geospend users export`: everything kept for one user as one JSON document, streamed
/// through a `ByteSink` (one expense per line, so memory stays flat for any number of rows).
///
/// ```json
/// {"format":"geospend-user-export","version":1,"engine":"geospend 0.1.0","generated_at":"…",
/// "user":{"id":"alice","display_name":null,"created_at":"2026-03-01T10:00:00Z"},
/// "categories":[{"kind":"expense","name":"Food"},…],
/// "expenses":[
/// {"id":"e1","user":"alice","kind":"expense","amount":"4.50","currency":"EUR",…,"lat":60.1712,"lon":24.9413,…},
/// …],
/// "stores":[{"id":"317766538","name":"Robert's Coffee",…}],
/// "periods":[{"id":1,"name":"Lisbon trip","from":"2025-03-01","to":null,"expenses":["e1"]}],
/// "counts":{"expenses":1,"categories":13,"stores":1,"periods":1}}
/// ```
///
/// Each expense object has exactly the keys of the JSON Lines import format (Data/README.md), so
/// `jq -c '.expenses[]'` gives a file `geospend import expenses` takes back. Money is a decimal
/// string with the currency's minor digits; coordinates and accuracies are written with the
/// shortest digits that read back as the same binary number, so nothing is rounded away.
/// The stored columns left out are recomputed from these on import: the UTC instant, offset
/// and local day (from `occurred_at`), the geometry (from `lat`/`lon`), the row key and the
/// content hash (`UserExport.derivedExpenseColumns`).
public enum UserExport {
    /// What a document held.
    public struct Counts: Sendable, Hashable {
        public var expenses, categories, stores, periods: Int
        public init(expenses: Int = 0, categories: Int = 0, stores: Int = 0, periods: Int = 0) {
            self.expenses = expenses
            self.categories = categories
            self.stores = stores
            self.periods = periods
        }
    }

    /// The keys of every expense object, in order (the JSON Lines import keys).
    public static let expenseKeys = [
        "id", "user", "kind", "amount", "currency", "occurred_at", "title", "category", "merchant", "lat", "lon",
        "accuracy_m", "store_id", "notes",
    ]

    /// Columns of the `expenses` table written in another section: `period_id` as the ids in
    /// each period's `expenses` list.
    public static let expenseColumnsWrittenElsewhere: Set<String> = ["period_id"]

    /// Columns of the `expenses` table that are not written because import derives them.
    public static let derivedExpenseColumns: Set<String> = [
        "pk", "occurred_ms", "utc_offset_min", "local_date", "geom", "content_hash",
    ]

    /// Writes the document. Expenses stream in id order; the stores they name follow them.
    public static func write(_ data: some UserDataSnapshot, generatedAt: String, to sink: ByteSink) throws -> Counts {
        var counts = Counts()
        let user = data.user
        let header = JSONOutput.object([
            ("id", .string(user.id)), ("display_name", .text(user.displayName)), ("created_at", .string(user.createdAt)),
        ])
        sink.ascii("{\"format\":\"geospend-user-export\",\"version\":1,\"engine\":")
        sink.jsonString("geospend \(GeoSpendInfo.version)")
        sink.ascii(",\"generated_at\":")
        sink.jsonString(generatedAt)
        sink.ascii(",\n\"user\":")
        sink.raw(header.serialized(pretty: false))

        let categories = try data.categories()
        counts.categories = categories.count
        sink.ascii(",\n\"categories\":")
        sink.raw(JSONOutput.array(categories.map { .object([("kind", .string($0.kind.rawValue)), ("name", .string($0.name))]) })
            .serialized(pretty: false))

        sink.ascii(",\n\"expenses\":[")
        var storeIDs = Set<String>()
        try data.forEachExpense { e in
            sink.ascii(counts.expenses == 0 ? "\n" : ",\n")
            counts.expenses += 1
            if let s = e.storeID { storeIDs.insert(s) }
            writeExpense(e, to: sink)
        }
        sink.ascii(counts.expenses == 0 ? "],\n\"stores\":[" : "\n],\n\"stores\":[")

        let stores = try data.stores(withIDs: storeIDs)
        counts.stores = stores.count
        for (n, s) in stores.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            var w = ObjectWriter(sink: sink)
            for (key, value) in [("id", s.id), ("name", s.name), ("kind", s.kind), ("brand", s.brand), ("street", s.street),
                                 ("postcode", s.postcode), ("city", s.city), ("country", s.country), ("source_id", s.sourceID)] {
                w.string(key, value)
            }
            w.exact("lat", s.coordinate.latitude)
            w.exact("lon", s.coordinate.longitude)
            sink.byte(UInt8(ascii: "}"))
        }
        sink.ascii(stores.isEmpty ? "],\n" : "\n],\n")

        let periods = try data.periods()
        counts.periods = periods.count
        sink.ascii("\"periods\":[")
        for (n, (p, ids)) in periods.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            sink.raw(JSONOutput.object([
                ("id", .integer(p.id)), ("name", .string(p.name)), ("from", .string(p.start)), ("to", .text(p.end)),
                ("expenses", .array(ids.map { .string($0) })),
            ]).serialized(pretty: false))
        }
        sink.ascii(periods.isEmpty ? "],\n" : "\n],\n")
        sink.ascii("\"counts\":{\"expenses\":")
        sink.integer(counts.expenses)
        sink.ascii(",\"categories\":")
        sink.integer(counts.categories)
        sink.ascii(",\"stores\":")
        sink.integer(counts.stores)
        sink.ascii(",\"periods\":")
        sink.integer(counts.periods)
        sink.ascii("}}\n")
        return counts
    }

    private static func writeExpense(_ e: Expense, to sink: ByteSink) {
        var w = ObjectWriter(sink: sink)
        w.string("id", e.id)
        w.string("user", e.userID)
        w.string("kind", e.kind.rawValue)
        w.key("amount")
        sink.byte(UInt8(ascii: "\""))
        sink.money(e.amount.minorUnits, digits: e.amount.currency.minorDigits)
        sink.byte(UInt8(ascii: "\""))
        w.string("currency", e.amount.currency.code)
        w.string("occurred_at", e.occurredAt.text)
        w.string("title", e.title)
        w.string("category", e.category)
        w.string("merchant", e.merchant)
        w.exact("lat", e.location?.coordinate.latitude)
        w.exact("lon", e.location?.coordinate.longitude)
        w.exact("accuracy_m", e.location?.accuracyMeters)
        w.string("store_id", e.storeID)
        w.string("notes", e.notes)
        sink.byte(UInt8(ascii: "}"))
    }

    /// `{"key":value,…` on one line; the caller closes the brace.
    private struct ObjectWriter {
        let sink: ByteSink
        var first = true

        mutating func key(_ name: String) {
            sink.ascii(first ? "{" : ",")
            first = false
            sink.jsonString(name)
            sink.byte(UInt8(ascii: ":"))
        }

        mutating func string(_ name: String, _ value: String?) {
            key(name)
            if let value { sink.jsonString(value) } else { sink.ascii("null") }
        }

        /// Swift's shortest round-trip digits (`60.1696312`, `1e-05`): valid JSON, and read back
        /// as the same `Double`.
        mutating func exact(_ name: String, _ value: Double?) {
            key(name)
            if let value, value.isFinite { sink.raw("\(value)") } else { sink.ascii("null") }
        }
    }
}
