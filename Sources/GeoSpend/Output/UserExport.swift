/// `geospend users export`: everything kept for one user as one JSON document, streamed
/// through a `ByteSink` (one expense per line, so memory stays flat for any number of rows).
///
/// ```json
/// {"format":"geospend-user-export","version":1,"engine":"geospend 0.1.0","generated_at":"…",
/// "user":{"id":"alice","display_name":"Alice Example","email":"alice@example.org","created_at":"2026-03-01T10:00:00Z"},
/// "settings":{"time_zone":"Europe/Helsinki","position_retention_days":365},
/// "webhooks":[{"id":"wh_…","url":"https://example.org/hook","events":[],"created_at":"…"}],
/// "notification_settings":{"events":[],"quiet_hours":"22:00-07:00","reminder_lead_minutes":30},
/// "categories":[{"kind":"expense","name":"Food","icon":null,"color":null,"is_default":true,"is_active":true,"created_at":"…","updated_at":"…"},…],
/// "expenses":[
/// {"id":"e1","user":"alice","kind":"expense","amount":"4.50","currency":"EUR",…,"lat":60.1712,"lon":24.9413,…},
/// …],
/// "expense_times":[{"id":"x01…","remind_at":"2025-03-05T09:00:00+01:00","created_at":"…","updated_at":"…"}],
/// "stores":[{"id":"317766538","name":"Robert's Coffee",…}],
/// "budgets":[{"id":1,"user":"alice","name":"Groceries","amount":"500.00",…}],
/// "periods":[{"id":1,"name":"Lisbon trip","from":"2025-03-01","to":null,"expenses":["e1"],"created_at":"…","updated_at":"…"}],
/// "price_records":[{"product":"Vollmilch 1,5%","brand":"Valio",…,"unit":"l","source":"import","receipt_id":null}],
/// "price_record_times":[{"product_id":1,"created_at":"2026-03-05T08:00:00.000Z","updated_at":"2026-03-06T09:30:00.000Z"}],
/// "shopping_lists":[{"id":1,"name":"Week","budget":"40.00","currency":"EUR","items":[{"name":"Milch","quantity":"2"}],"completed_expense_id":null}],
/// "pantry":[{"id":1,"user":"ann","name":"Milch","quantity":"2","expires":"2025-06-10","status":"open",…}],
/// "recurring":[{"id":1,"every":"monthly","from":"2025-01-31","until":null,"next_due":"2025-04-30","kind":"expense","amount":"950.00",…}],
/// "product_tags":[{"name":"dairy","color":"#007AFF","products":1}],
/// "product_marks":[{"product_id":1,"product":"Vollmilch 1,5%","barcode":null,"favourite":true,"on_sale":false,"tags":["dairy"]}],
/// "user_stores":{"added":[{"id":"mine-1","name":"K-Market Kallio","kind":"shop:supermarket","region":"Uusimaa",…}],"favourites":["317766538"],"default":"mine-1"},
/// "community":{"member":{"display_name":"Alice","joined_at":"…"},"posts":[{"id":3,"type":"store_review",…}],"comments":[]},
/// "positions":[{"time":"2026-03-05T08:12:44Z","lat":60.1699,"lon":24.9384,"accuracy_m":12,"source":"google-records"}],
/// "visits":[{"start":"…","end":"…","lat":60.1699,"lon":24.9384,"radius_m":null,"place_name":"Stockmann",…}],
/// "counts":{"expenses":1,"categories":13,"stores":1,"budgets":1,"periods":1,"price_records":1,"shopping_lists":1,"positions":1,"visits":1}}
/// ```
///
/// Each expense object has exactly the keys of the JSON Lines import format (Data/README.md), so
/// `jq -c '.expenses[]'` gives a file `geospend import expenses` takes back. Money is a decimal
/// string with the currency's minor digits; coordinates and accuracies are written with the
/// shortest digits that read back as the same binary number, so nothing is rounded away.
/// The stored columns left out are recomputed from these on import: the UTC instant, offset
/// and local day (from `occurred_at`), the geometry (from `lat`/`lon`), the row key and the
/// content hash (`UserExport.derivedExpenseColumns`). What `geospend expenses add|edit` keeps
/// beyond the import format — reminder, creation and change times — is in `expense_times`, by
/// expense id, so the expense lines stay importable. Price records have the keys of
/// `geospend prices import` (`PriceImport.columns`), so `jq -c '.price_records[]'` is a file it
/// takes back; the stores they name are in `stores`, and `receipt_id` names the receipt in
/// `receipts` a record came from (null for one imported or entered by hand). Their product's
/// catalogue id and their creation and change times are in `price_record_times`, one object per
/// record in the same order (times null where a record is older than them: migration v27 on
/// the file, v18 on PostgreSQL); `users import` keeps a product's id by it.
public enum UserExport {
    /// What a document held.
    public struct Counts: Sendable, Hashable {
        public var expenses, categories, stores, budgets, periods, priceRecords: Int
        public var shoppingLists = 0
        public var positions = 0
        public var visits = 0
        public init(expenses: Int = 0, categories: Int = 0, stores: Int = 0, budgets: Int = 0, periods: Int = 0, priceRecords: Int = 0) {
            self.expenses = expenses
            self.categories = categories
            self.stores = stores
            self.budgets = budgets
            self.periods = periods
            self.priceRecords = priceRecords
        }
    }

    /// The keys of every expense object, in order (the JSON Lines import keys).
    public static let expenseKeys = [
        "id", "user", "kind", "amount", "currency", "occurred_at", "title", "category", "merchant", "lat", "lon",
        "accuracy_m", "store_id", "notes",
    ]

    /// The keys of each `expense_times` object (columns of `expenses` besides the import's).
    public static let expenseTimesKeys = ["id", "remind_at", "created_at", "updated_at", "position_source", "position_confidence", "store_inferred"]

    /// The keys of each `positions` object: the fix's instant in UTC, WGS84, the accuracy
    /// radius and the format it was read from.
    public static let positionKeys = ["time", "lat", "lon", "accuracy_m", "source"]

    /// Columns of the `expenses` table written in another section: `period_id` as the ids in
    /// each period's `expenses` list.
    public static let expenseColumnsWrittenElsewhere: Set<String> = ["period_id"]

    /// Columns of the `expenses` table that are not written because import derives them
    /// (`remind_ms` from `remind_at`).
    public static let derivedExpenseColumns: Set<String> = [
        "pk", "occurred_ms", "utc_offset_min", "local_date", "geom", "content_hash", "remind_ms",
    ]

    /// Writes the document. Expenses stream in id order; the stores they name follow them.
    public static func write(_ data: some UserDataSnapshot, generatedAt: String, to sink: ByteSink) throws -> Counts {
        var counts = Counts()
        let user = data.user
        let header = JSONOutput.object([
            ("id", .string(user.id)), ("display_name", .text(user.displayName)), ("email", .text(user.email)),
            ("created_at", .string(user.createdAt)),
        ])
        sink.ascii("{\"format\":\"geospend-user-export\",\"version\":1,\"engine\":")
        sink.jsonString("geospend \(GeoSpendInfo.version)")
        sink.ascii(",\"generated_at\":")
        sink.jsonString(generatedAt)
        sink.ascii(",\n\"user\":")
        sink.raw(header.serialized(pretty: false))
        // The user's own choices (`UserSettingsJSON`), nulls when none.
        sink.ascii(",\n\"settings\":")
        sink.raw(UserSettingsJSON.object(try data.settings()).serialized(pretty: false))
        // Their webhook subscriptions, never the signing secrets (issue 39).
        sink.ascii(",\n\"webhooks\":")
        sink.raw(JSONOutput.array(try data.webhooks().map(\.json)).serialized(pretty: false))
        sink.ascii(",\n\"notification_settings\":")
        sink.raw(try data.notificationSettings().json.serialized(pretty: false))

        let categories = try data.categoryDetails()
        counts.categories = categories.count
        sink.ascii(",\n\"categories\":")
        sink.raw(JSONOutput.array(categories.map { c in
            .object([
                ("kind", .string(c.category.kind.rawValue)), ("name", .string(c.category.name)), ("icon", .text(c.icon)),
                ("color", .text(c.color)), ("is_default", .bool(c.isDefault)), ("is_active", .bool(c.isActive)),
                ("created_at", .text(c.createdAt)), ("updated_at", .text(c.updatedAt)),
            ])
        }).serialized(pretty: false))

        sink.ascii(",\n\"expenses\":[")
        var storeIDs = Set<String>()
        try data.forEachExpense { e in
            sink.ascii(counts.expenses == 0 ? "\n" : ",\n")
            counts.expenses += 1
            if let s = e.storeID { storeIDs.insert(s) }
            writeExpense(e, to: sink)
        }
        sink.ascii(counts.expenses == 0 ? "],\n\"expense_times\":[" : "\n],\n\"expense_times\":[")
        var timed = 0
        try data.forEachExpenseTimes { t in
            sink.ascii(timed == 0 ? "\n" : ",\n")
            timed += 1
            var w = ObjectWriter(sink: sink)
            w.string("id", t.id)
            w.string("remind_at", t.remindAt)
            w.string("created_at", t.createdAt)
            w.string("updated_at", t.updatedAt)
            w.string("position_source", t.positionSource?.rawValue)
            w.exact("position_confidence", t.positionConfidence)
            w.key("store_inferred")
            sink.ascii(t.storeInferred ? "true" : "false")
            sink.byte(UInt8(ascii: "}"))
        }
        sink.ascii(timed == 0 ? "],\n\"stores\":[" : "\n],\n\"stores\":[")
        let prices = try data.priceRecords()
        // A record at the user's own added store names it in `user_stores`, not among the registry's.
        let own = Set(try data.storeChoiceRecord().added.map(\.id))
        for r in prices where !own.contains(r.storeID) { storeIDs.insert(r.storeID) }
        let receipts = try data.receipts()
        for r in receipts { if let s = r.storeID, !own.contains(s) { storeIDs.insert(s) } }

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
        // Budgets (issue 17), one per line, in `BudgetJSON.budget`'s shape.
        let budgets = try data.budgets()
        counts.budgets = budgets.count
        sink.ascii("\"budgets\":[")
        for (n, b) in budgets.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            sink.raw(BudgetJSON.budget(b).serialized(pretty: false))
        }
        sink.ascii(budgets.isEmpty ? "],\n" : "\n],\n")

        let periods = try data.periods()
        counts.periods = periods.count
        sink.ascii("\"periods\":[")
        for (n, (p, ids)) in periods.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            sink.raw(JSONOutput.object([
                ("id", .integer(p.id)), ("name", .string(p.name)), ("from", .string(p.start)), ("to", .text(p.end)),
                ("expenses", .array(ids.map { .string($0) })), ("created_at", .text(p.createdAt)), ("updated_at", .text(p.updatedAt)),
            ]).serialized(pretty: false))
        }
        sink.ascii(periods.isEmpty ? "],\n" : "\n],\n")

        counts.priceRecords = prices.count
        let receiptOf = try data.priceRecordReceipts()
        sink.ascii("\"price_records\":[")
        for (n, r) in prices.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            writePriceRecord(r, receiptID: receiptOf[r.id], to: sink)
        }
        sink.ascii(prices.isEmpty ? "],\n" : "\n],\n")
        // The records' times, in the same order (the record lines keep the import's keys).
        sink.ascii("\"price_record_times\":[")
        for (n, r) in prices.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            sink.raw(JSONOutput.object([
                ("product_id", .integer(r.product.id)), ("created_at", .text(r.createdAt)), ("updated_at", .text(r.updatedAt)),
            ]).serialized(pretty: false))
        }
        sink.ascii(prices.isEmpty ? "],\n" : "\n],\n")
        // Shopping lists (issue 18), items in the order added.
        let lists = try data.shoppingLists()
        counts.shoppingLists = lists.count
        sink.ascii("\"shopping_lists\":[")
        for (n, l) in lists.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            sink.raw(JSONOutput.object([
                ("id", .integer(l.id)), ("name", .string(l.name)), ("budget", .string(l.budget.decimalString)),
                ("currency", .string(l.budget.currency.code)),
                // A checked item (`lists check`) also names its purchase and what it cost.
                ("items", .array(l.items.map { i in
                    .object([("name", .string(i.name)), ("quantity", .string(i.quantityText))] + (i.check.map { c in
                        [("expense_id", .string(c.expenseID)), ("paid", .string(Money.decimalString(c.paidMinor, digits: l.budget.currency.minorDigits)))]
                    } ?? []))
                })),
                ("completed_expense_id", .text(l.completedExpenseID)),
            ]).serialized(pretty: false))
        }
        sink.ascii(lists.isEmpty ? "],\n" : "\n],\n")
        // Receipts (issue 42 §2) in `receipts show --format json`'s shape, a kept photo as base64.
        sink.ascii("\"receipts\":[")
        for (n, r) in receipts.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            sink.raw(r.json(withImage: true).serialized(pretty: false))
        }
        sink.ascii(receipts.isEmpty ? "],\n" : "\n],\n")
        // Recurring rules (issue 38), by id; the expenses they created are among the expenses.
        let rules = try data.recurringRules()
        sink.ascii("\"recurring\":[")
        for (n, r) in rules.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            sink.raw(RecurringJSON.rule(r).serialized(pretty: false))
        }
        sink.ascii(rules.isEmpty ? "],\n" : "\n],\n")
        // Pantry items (issue 38), by id, open and closed.
        // The user's view of the shared catalogue (issue 38): tags, and per product the flags and
        // tag names, the product named as its records name it (the catalogue is not the user's).
        sink.ascii("\"product_tags\":")
        sink.raw(JSONOutput.array(try data.productTags().map(ProductCatalogue.json)).serialized(pretty: false))
        sink.ascii(",\n\"product_marks\":[")
        let marks = try data.productMarks()
        for (n, (p, m)) in marks.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            sink.raw(JSONOutput.object([
                ("product_id", .integer(p.id)), ("product", .string(p.name)), ("barcode", .text(p.barcode?.digits)),
                ("favourite", .bool(m.favourite)), ("on_sale", .bool(m.onSale)), ("tags", .array(m.tags.map { .string($0) })),
            ]).serialized(pretty: false))
        }
        sink.ascii(marks.isEmpty ? "],\n" : "\n],\n")

        let pantry = try data.pantryItems()
        sink.ascii("\"pantry\":[")
        for (n, i) in pantry.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            sink.raw(PantryListing.json(i).serialized(pretty: false))
        }
        sink.ascii(pantry.isEmpty ? "],\n" : "\n],\n")
        // Per-user stores (issue 38): added stores by id, favourite and default ids as chosen.
        let choices = try data.storeChoiceRecord()
        sink.ascii("\"user_stores\":")
        sink.raw(StoreChoiceListing.exportJSON(choices).serialized(pretty: false))
        sink.ascii(",\n")
        // The community layer (issue 38): membership, own entries and comments, by id.
        let community = try data.communityActivity()
        sink.ascii("\"community\":")
        sink.raw(JSONOutput.object([
            ("member", community.member.map { JSONOutput.object([("display_name", .string($0.displayName)), ("joined_at", .string($0.joinedAt))]) } ?? .null),
            ("posts", .array(community.posts.map(CommunityJSON.post))),
            ("comments", .array(community.comments.map(CommunityJSON.comment))),
        ]).serialized(pretty: false))
        sink.ascii(",\n")
        // API tokens (issue 20): that they exist, their scope and expiry; never a hash or a key.
        let tokens = try data.apiTokens()
        sink.ascii("\"api_tokens\":[")
        for (n, t) in tokens.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            sink.raw(JSONOutput.object([
                ("id", .integer(t.id)), ("scope", .string(t.scope.rawValue)), ("created_at", .string(t.createdAt)),
                ("expires_at", .text(t.expiresAt?.text)),
            ]).serialized(pretty: false))
        }
        sink.ascii(tokens.isEmpty ? "],\n" : "\n],\n")
        // The location history (issue 36), one fix per line, in time order.
        sink.ascii("\"positions\":[")
        try data.forEachPosition { p in
            sink.ascii(counts.positions == 0 ? "\n" : ",\n")
            counts.positions += 1
            var w = ObjectWriter(sink: sink)
            w.key("time")
            sink.byte(UInt8(ascii: "\""))
            sink.rfc3339(epochMilliseconds: p.epochMilliseconds, utcOffsetMinutes: 0)
            sink.byte(UInt8(ascii: "\""))
            w.exact("lat", p.coordinate.latitude)
            w.exact("lon", p.coordinate.longitude)
            w.exact("accuracy_m", p.accuracyMeters)
            w.string("source", p.source.rawValue)
            sink.byte(UInt8(ascii: "}"))
        }
        sink.ascii(counts.positions == 0 ? "],\n" : "\n],\n")
        let visits = try data.visits()
        counts.visits = visits.count
        sink.ascii("\"visits\":[")
        for (n, v) in visits.enumerated() {
            sink.ascii(n == 0 ? "\n" : ",\n")
            var w = ObjectWriter(sink: sink)
            w.string("start", Timestamp.rfc3339(epochMilliseconds: v.startEpochMilliseconds, utcOffsetMinutes: 0))
            w.string("end", Timestamp.rfc3339(epochMilliseconds: v.endEpochMilliseconds, utcOffsetMinutes: 0))
            w.exact("lat", v.centre.latitude)
            w.exact("lon", v.centre.longitude)
            w.exact("radius_m", v.radiusMeters)
            w.string("place_name", v.placeName)
            w.string("place_id", v.placeID)
            w.exact("probability", v.probability)
            w.string("source", v.source?.rawValue)
            sink.byte(UInt8(ascii: "}"))
        }
        sink.ascii(visits.isEmpty ? "],\n" : "\n],\n")
        sink.ascii("\"counts\":{\"expenses\":")
        sink.integer(counts.expenses)
        sink.ascii(",\"categories\":")
        sink.integer(counts.categories)
        sink.ascii(",\"stores\":")
        sink.integer(counts.stores)
        sink.ascii(",\"budgets\":")
        sink.integer(counts.budgets)
        sink.ascii(",\"periods\":")
        sink.integer(counts.periods)
        sink.ascii(",\"price_records\":")
        sink.integer(counts.priceRecords)
        sink.ascii(",\"shopping_lists\":")
        sink.integer(counts.shoppingLists)
        sink.ascii(",\"positions\":")
        sink.integer(counts.positions)
        sink.ascii(",\"visits\":")
        sink.integer(counts.visits)
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

    /// A price record with the keys of `PriceImport.columns`, in order.
    private static func writePriceRecord(_ r: PriceRecord, receiptID: String?, to sink: ByteSink) {
        var w = ObjectWriter(sink: sink)
        w.string("product", r.product.name)
        w.string("brand", r.product.brand)
        w.string("barcode", r.product.barcode?.digits)
        w.string("category", r.product.category)
        w.string("store_id", r.storeID)
        w.string("price", r.price.decimalString)
        w.string("currency", r.price.currency.code)
        w.string("recorded_at", r.recordedAt.text)
        w.exact("quantity", r.quantity)
        w.string("unit", r.unit.rawValue)
        w.string("source", r.source.rawValue)
        w.string("receipt_id", receiptID)
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
