/// `geospend users import`: reads what `users export` wrote (`UserExport`) back into typed
/// values, checked field by field, for a store to write in one transaction
/// (`UserDataStore.restore`).
///
/// ```swift
/// let data = try UserRestore.read(bytes)            // UserRestoreError names the JSON path
/// try await store.restore(data.retargeted(to: "bob"))
/// ```
///
/// What it reads: the user (name, email, creation time), settings, notification settings,
/// categories with their icon, colour and flags, expenses with their times (`expense_times`),
/// periods and the expenses in them, the location history (`positions`, `visits`), budgets
/// (limits, zones, thresholds), recurring rules and pantry items — ids as exported — and, in
/// UserRestore+Shared.swift, price records with their products, product tags and marks,
/// shopping lists, receipts and the community layer. The stores the
/// export names are shared: they must exist in the target database (the export carries their
/// fields, but a shared store is not ours to create), else `UserRestoreError.unknownStore`.
/// Left out on purpose: API tokens (a restore never brings back a credential) and webhooks
/// (their signing secrets are never exported). Sections a version cannot write are refused
/// when not empty (`UserRestoreError.unsupported`), never dropped silently.
public enum UserRestore {
    /// The `format` value of an export.
    public static let format = "geospend-user-export"
    /// The export versions this reader takes (`UserExport` writes the last).
    public static let versions: ClosedRange<Int64> = 1...1
    /// The largest document read: 256 MiB (the document is parsed whole).
    public static let maximumBytes = 256 << 20

    /// Sections whose rows this version does not restore: a non-empty one refuses the document.
    /// (None since price records, product tags and marks, shopping lists, receipts and the
    /// community layer are restored: UserRestore+Shared.swift.)
    public static let unsupportedSections: [String] = []
    /// Sections later exports added that this version does not restore: refused when not
    /// empty, and an export written before them may lack them.
    public static let unsupportedLaterSections: [String] = []

    /// Tables keyed by user that do not count against "empty": the credentials a restore never
    /// writes (a user signed in over HTTP holds a token, and restores into themselves).
    public static let credentialTables: Set<String> = ["api_tokens", "api_token_numbers"]

    /// The categories that do not count against "empty" either: the defaults as a new user gets
    /// them (untouched: active, with `Category.defaultLooks`' icon and colour). A restore
    /// replaces the user's categories.
    public static let untouchedDefaultCategory: String = {
        let looks = Category.defaultLooks
            .sorted { ($0.key.kind.rawValue, $0.key.name) < ($1.key.kind.rawValue, $1.key.name) }
            .map { c, look in "(kind = '\(c.kind.rawValue)' AND name = '\(c.name)' AND icon = '\(look.icon)' AND color = '\(look.color)')" }
        return "is_default AND is_active AND (\(looks.joined(separator: " OR ")))"
    }()

    /// Parses and checks a whole export.
    /// - Throws: `UserRestoreError` naming the JSON path of the first bad value.
    public static func read(_ bytes: [UInt8]) throws(UserRestoreError) -> UserRestoreData {
        guard bytes.count <= maximumBytes else {
            throw .tooLarge(bytes: bytes.count, limit: maximumBytes)
        }
        let root: JSONValue
        do { root = try StrictJSONParser.parse(bytes) } catch {
            throw .invalid(path: "", reason: "is not valid JSON at byte \(error.offset): \(error.reason)")
        }
        let doc = Node(value: root, path: "")
        guard case .object = root else { throw .invalid(path: "", reason: "is \(root.typeName); an export is one JSON object") }
        guard try doc.string("format") == format else {
            throw .invalid(path: "format", reason: "is not \"\(format)\": not a `geospend users export` document")
        }
        let version = try doc.integer("version")
        guard versions.contains(version) else {
            throw .invalid(path: "version", reason: "\(version) is not a version this geospend reads (\(versions.lowerBound)–\(versions.upperBound)); use a newer geospend")
        }
        for section in unsupportedSections {
            let n = try doc.array(section).count
            if n > 0 { throw .unsupported(section: section, rows: n) }
        }
        for section in unsupportedLaterSections {
            let n = try doc.optionalArray(section)?.count ?? 0
            if n > 0 { throw .unsupported(section: section, rows: n) }
        }

        let user = try doc.child("user")
        var data = UserRestoreData(
            userID: try user.identifier("id"), displayName: try user.optionalString("display_name"),
            email: try user.optionalString("email"), createdAt: try user.string("created_at"))
        let settings = try doc.child("settings")
        let zone = try settings.optionalString("time_zone")
        let days = try settings.optionalInteger("position_retention_days").map { Int(clamping: $0) }
        do { data.settings = try UserSettings(timeZone: zone, positionRetentionDays: days) } catch {
            throw .invalid(path: "settings.\(error.setting)", reason: error.reason)
        }
        let notifications = try doc.child("notification_settings")
        let quiet = try notifications.optionalString("quiet_hours")
        let lead = try notifications.integer("reminder_lead_minutes")
        guard NotificationSettings.leadRange.contains(Int(clamping: lead)) else {
            throw .invalid(path: "notification_settings.reminder_lead_minutes", reason: "\(lead) is outside \(NotificationSettings.leadRange)")
        }
        var quietHours: NotificationSettings.QuietHours?
        if let quiet {
            guard let parsed = NotificationSettings.QuietHours(parsing: quiet) else {
                throw .invalid(path: "notification_settings.quiet_hours", reason: "\"\(quiet)\" is not HH:MM-HH:MM")
            }
            quietHours = parsed
        }
        var events: [String] = []
        for e in try notifications.array("events") { events.append(try e.stringValue()) }
        data.notificationSettings = NotificationSettings(events: events, quietHours: quietHours, reminderLeadMinutes: Int(lead))
        data.webhooksLeftOut = try doc.array("webhooks").count
        data.tokensLeftOut = try doc.optionalArray("api_tokens")?.count ?? 0

        data.categories = try doc.array("categories").map { c throws(UserRestoreError) in
            let kindText = try c.string("kind")
            guard let kind = Category.Kind(rawValue: kindText) else {
                throw .invalid(path: c.path + ".kind", reason: "\"\(kindText)\" is not expense, income or transfer")
            }
            return RestoredCategory(
                category: Category(name: try c.string("name"), kind: kind), icon: try c.optionalString("icon"),
                color: try c.optionalString("color"), isDefault: try c.bool("is_default"), isActive: try c.bool("is_active"),
                createdAt: try c.optionalString("created_at"), updatedAt: try c.optionalString("updated_at"))
        }

        var ids = Set<String>()
        data.expenses = try doc.array("expenses").map { e throws(UserRestoreError) in
            guard case .object(let members) = e.value else { throw .invalid(path: e.path, reason: "is \(e.value.typeName); expected an object") }
            var fields: [String: RawRecord.RawValue] = [:]
            for (key, v) in members {
                guard UserExport.expenseKeys.contains(key) else { throw .invalid(path: "\(e.path).\(key)", reason: "unknown key") }
                switch v {
                case .null: break
                case .string(let s): fields[key] = .text(s)
                case .number(let n): fields[key] = .number(n)
                default: fields[key] = .invalid(v.typeName)
                }
            }
            let expense: Expense
            let record = RawRecord(location: e.path) { fields[$0] }
            do throws(FieldError) { expense = try ExpenseRecord.parse(record) } catch {
                throw .invalid(path: "\(e.path).\(error.column)", reason: error.reason)
            }
            guard expense.userID == data.userID else {
                throw .invalid(path: "\(e.path).user", reason: "\"\(expense.userID)\" is not the exported user \"\(data.userID)\"")
            }
            guard ids.insert(expense.id).inserted else { throw .invalid(path: "\(e.path).id", reason: "\"\(expense.id)\" appears twice") }
            return expense
        }
        data.expenseTimes = try doc.array("expense_times").map { t throws(UserRestoreError) in
            let id = try t.string("id")
            guard ids.contains(id) else { throw .invalid(path: t.path + ".id", reason: "\"\(id)\" is not among the expenses") }
            let remind = try t.optionalString("remind_at")
            if let remind {
                do { _ = try Timestamp(parsing: remind) } catch { throw .invalid(path: t.path + ".remind_at", reason: "\(error)") }
            }
            let source = try t.optionalString("position_source")
            var positionSource: PositionSource?
            if let source {
                guard let p = PositionSource(rawValue: source) else {
                    throw .invalid(path: t.path + ".position_source", reason: "\"\(source)\" is not one of \(PositionSource.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                positionSource = p
            }
            let confidence = try t.optionalDouble("position_confidence")
            if let confidence, !(0...1).contains(confidence) {
                throw .invalid(path: t.path + ".position_confidence", reason: "\(confidence) is outside [0, 1]")
            }
            return ExpenseTimes(
                id: id, remindAt: remind, createdAt: try t.optionalString("created_at"), updatedAt: try t.optionalString("updated_at"),
                positionSource: positionSource, positionConfidence: confidence, storeInferred: try t.bool("store_inferred"))
        }
        data.storeIDs = try doc.array("stores").map { s throws(UserRestoreError) in try s.string("id") }

        var periodNumbers = Set<Int64>()
        var inPeriod = Set<String>()
        data.periods = try doc.array("periods").map { p throws(UserRestoreError) in
            let number = try p.integer("id")
            guard number > 0, periodNumbers.insert(number).inserted else {
                throw .invalid(path: p.path + ".id", reason: "\(number) is not a positive id of its own")
            }
            let name = try p.string("name")
            let from = try p.string("from"), to = try p.optionalString("to")
            for (key, day) in [("from", from), ("to", to)] {
                guard let day else { continue }
                guard (try? LocalDay(parsing: day)) != nil else { throw .invalid(path: "\(p.path).\(key)", reason: "\"\(day)\" is not a YYYY-MM-DD date") }
            }
            let expenseIDs = try p.array("expenses").map { e throws(UserRestoreError) in
                let id = try e.stringValue()
                guard ids.contains(id) else { throw .invalid(path: e.path, reason: "\"\(id)\" is not among the expenses") }
                guard inPeriod.insert(id).inserted else { throw .invalid(path: e.path, reason: "\"\(id)\" is in another period too") }
                return id
            }
            return RestoredPeriod(
                number: number, name: name, start: from, end: to, expenseIDs: expenseIDs,
                createdAt: try p.optionalString("created_at"), updatedAt: try p.optionalString("updated_at"))
        }

        data.positions = try doc.array("positions").map { p throws(UserRestoreError) in
            let ms = try p.instant("time")
            let sourceText = try p.string("source")
            guard let source = LocationHistoryFormat(rawValue: sourceText) else {
                throw .invalid(path: p.path + ".source", reason: "\"\(sourceText)\" is not a location history format")
            }
            let accuracy = try p.optionalDouble("accuracy_m")
            if let accuracy, !(accuracy >= 0) { throw .invalid(path: p.path + ".accuracy_m", reason: "\(accuracy) is negative") }
            return Position(epochMilliseconds: ms, coordinate: try p.coordinate(), accuracyMeters: accuracy, source: source)
        }
        data.visits = try doc.array("visits").map { v throws(UserRestoreError) in
            let start = try v.instant("start"), end = try v.instant("end")
            guard end >= start else { throw .invalid(path: v.path + ".end", reason: "is before start") }
            let sourceText = try v.optionalString("source")
            // Detected stays are not stored (found again from the fixes): the export has none.
            guard let sourceText, let source = LocationHistoryFormat(rawValue: sourceText) else {
                throw .invalid(path: v.path + ".source", reason: "\(sourceText.map { "\"\($0)\"" } ?? "null") is not a location history format")
            }
            let radius = try v.optionalDouble("radius_m")
            if let radius, !(radius >= 0) { throw .invalid(path: v.path + ".radius_m", reason: "\(radius) is negative") }
            let probability = try v.optionalDouble("probability")
            if let probability, !(0...1).contains(probability) {
                throw .invalid(path: v.path + ".probability", reason: "\(probability) is outside [0, 1]")
            }
            return Visit(
                startEpochMilliseconds: start, endEpochMilliseconds: end, centre: try v.coordinate(), radiusMeters: radius,
                placeName: try v.optionalString("place_name"), placeID: try v.optionalString("place_id"), probability: probability,
                source: source)
        }
        data.budgets = try doc.array("budgets").map { b throws(UserRestoreError) in try budget(b, user: data.userID) }
        try unique(data.budgets.map(\.id), "budgets")
        data.recurring = try doc.array("recurring").map(recurringRule)
        try unique(data.recurring.map(\.number), "recurring")
        data.storeIDs += data.recurring.compactMap(\.storeID).filter { !data.storeIDs.contains($0) }
        data.pantry = try doc.array("pantry").map(pantryItem)
        try unique(data.pantry.map(\.number), "pantry")
        try readShared(doc, into: &data)
        data.storeChoices = try storeChoices(doc)
        // The user's own added stores come with them: only the registry's must be there already.
        let own = Set(data.storeChoices.added.map(\.id))
        data.storeIDs.removeAll { own.contains($0) }
        return data
    }

    /// Ids (per user, never reused) are positive and each once.
    static func unique(_ ids: [Int64], _ section: String) throws(UserRestoreError) {
        var seen = Set<Int64>()
        for (n, id) in ids.enumerated() where id <= 0 || !seen.insert(id).inserted {
            throw .invalid(path: "\(section)[\(n)].id", reason: "\(id) is not a positive id of its own")
        }
    }

    static func money(_ node: Node, _ key: String, currency: Currency) throws(UserRestoreError) -> Money {
        let text = try node.string(key)
        let m: Money
        do { m = try Money(parsing: text, currency: currency) } catch { throw .invalid(path: node.member(key).path, reason: "\(error)") }
        guard m.minorUnits > 0 else { throw .invalid(path: node.member(key).path, reason: "\(text) is not positive") }
        return m
    }

    static func currency(_ node: Node) throws(UserRestoreError) -> Currency {
        do { return try Currency(code: try node.string("currency")) } catch { throw .invalid(path: node.member("currency").path, reason: "\(error)") }
    }

    static func day(_ node: Node, _ key: String) throws(UserRestoreError) -> LocalDay? {
        guard let text = try node.optionalString(key) else { return nil }
        do { return try LocalDay(parsing: text) } catch { throw .invalid(path: node.member(key).path, reason: "\(error)") }
    }

    /// A budget in `BudgetJSON.budget`'s shape, its id, thresholds and creation time as exported.
    private static func budget(_ b: Node, user: String) throws(UserRestoreError) -> Budget {
        let c = try currency(b)
        guard let from = try day(b, "from") else { throw .invalid(path: b.path + ".from", reason: "is missing") }
        guard let to = try day(b, "to") else { throw .invalid(path: b.path + ".to", reason: "is missing") }
        guard from < to else { throw .invalid(path: b.path + ".to", reason: "is not after from") }
        let every = try b.optionalString("every")
        var recurrence: Budget.Recurrence?
        if let every {
            guard let r = Budget.Recurrence(rawValue: every) else { throw .invalid(path: b.path + ".every", reason: "\"\(every)\" is not week, month or year") }
            recurrence = r
        }
        let limits = try b.array("category_limits").map { l throws(UserRestoreError) in
            Budget.CategoryLimit(category: try l.string("category"), amount: try money(l, "amount", currency: c))
        }
        let zoneNode = b.member("zone")
        var zone: BudgetZone?
        if zoneNode.value != .null {
            switch try zoneNode.string("type") {
            case "circle":
                let radius = try zoneNode.optionalDouble("radius_m") ?? 0
                guard radius > 0 else { throw .invalid(path: zoneNode.path + ".radius_m", reason: "is not a positive radius") }
                zone = .circle(center: try zoneNode.coordinate(), radius: Distance(meters: radius))
            case "polygon":
                let geometry = try zoneNode.child("geometry")
                do { zone = try BudgetZone.parsing(geoJSON: Array(geometry.value.text.utf8), source: geometry.path) } catch {
                    throw .invalid(path: geometry.path, reason: "\(error)")
                }
            case let other: throw .invalid(path: zoneNode.path + ".type", reason: "\"\(other)\" is not circle or polygon")
            }
        }
        let thresholds = try b.array("thresholds").map { t throws(UserRestoreError) in
            guard case .number(let text) = t.value, let v = Int64(text), BudgetThresholds.range.contains(v) else {
                throw .invalid(path: t.path, reason: "is not a whole percentage \(BudgetThresholds.range)")
            }
            return v
        }
        guard thresholds == thresholds.sorted(), Set(thresholds).count == thresholds.count, thresholds.count <= BudgetThresholds.maxCount else {
            throw .invalid(path: b.path + ".thresholds", reason: "are not at most \(BudgetThresholds.maxCount) distinct percentages in ascending order")
        }
        return Budget(
            id: try b.integer("id"), userID: user, name: try b.string("name"), amount: try money(b, "amount", currency: c), from: from, to: to,
            category: try b.optionalString("category"), every: recurrence, categoryLimits: limits, zone: zone, isActive: try b.bool("active"),
            createdAt: try b.string("created_at"), thresholds: thresholds)
    }

    /// A rule in `RecurringJSON.rule`'s shape.
    private static func recurringRule(_ r: Node) throws(UserRestoreError) -> RestoredRecurringRule {
        let kindText = try r.string("kind")
        guard let kind = ExpenseKind(rawValue: kindText) else { throw .invalid(path: r.path + ".kind", reason: "\"\(kindText)\" is not expense, income or transfer") }
        let every = try r.string("every")
        do { _ = try RecurringSchedule.Every(parsing: every) } catch { throw .invalid(path: r.path + ".every", reason: "\(error)") }
        guard let from = try day(r, "from") else { throw .invalid(path: r.path + ".from", reason: "is missing") }
        let until = try day(r, "until")
        if let until, until < from { throw .invalid(path: r.path + ".until", reason: "is before from") }
        return RestoredRecurringRule(
            number: try r.integer("id"), kind: kind, amount: try money(r, "amount", currency: try currency(r)), title: try r.optionalString("title"),
            category: try r.optionalString("category"), merchant: try r.optionalString("merchant"), storeID: try r.optionalString("store_id"),
            notes: try r.optionalString("notes"), every: every, from: from.description, until: until?.description,
            nextDue: try day(r, "next_due")?.description, createdAt: try r.string("created_at"), updatedAt: try r.string("updated_at"))
    }

    /// `user_stores` (`StoreChoiceListing.exportJSON`), which exports before it lack.
    private static func storeChoices(_ doc: Node) throws(UserRestoreError) -> StoreChoiceRecord {
        guard doc.member("user_stores").value != .null else { return StoreChoiceRecord() }
        let section = try doc.child("user_stores")
        let added = try section.array("added").map { s throws(UserRestoreError) -> StoreEntry in
            let id = try s.string("id")
            guard AddedStoreID.number(id) != nil else { throw .invalid(path: s.path + ".id", reason: "\"\(id)\" is not an added store's id (mine-N)") }
            let fields: AddedStoreFields
            do {
                fields = try AddedStoreFields.checked(
                    name: try s.string("name"), lat: try s.coordinate().latitude, lon: try s.coordinate().longitude, kind: try s.string("kind"),
                    region: try s.optionalString("region"))
            } catch let e as UsageError { throw .invalid(path: s.path, reason: e.message) } catch let e as UserRestoreError { throw e } catch {
                throw .invalid(path: s.path, reason: "\(error)")
            }
            return StoreEntry(
                store: Store(id: id, name: fields.name, kind: fields.kind, coordinate: fields.coordinate), region: fields.region,
                createdAt: try s.string("created_at"))
        }
        try unique(added.map { AddedStoreID.number($0.id) ?? 0 }, "user_stores.added")
        let favourites = try section.array("favourites").map { f throws(UserRestoreError) in try f.stringValue() }
        return StoreChoiceRecord(added: added, favouriteIDs: favourites, defaultID: try section.optionalString("default"))
    }

    /// An item in `PantryListing.json`'s shape.
    private static func pantryItem(_ i: Node) throws(UserRestoreError) -> RestoredPantryItem {
        let status = try i.string("status")
        guard ["open", "used", "discarded"].contains(status) else { throw .invalid(path: i.path + ".status", reason: "\"\(status)\" is not open, used or discarded") }
        let closed = try i.optionalString("closed_at")
        guard (closed == nil) == (status == "open") else { throw .invalid(path: i.path + ".closed_at", reason: "is given exactly when the item is closed") }
        let name = try i.string("name")
        guard !name.isEmpty else { throw .invalid(path: i.path + ".name", reason: "is empty") }
        // Exports before pantry items came from purchases have neither: added by hand.
        let source = try i.optionalString("source") ?? PantryItem.Source.hand.rawValue
        guard PantryItem.Source(rawValue: source) != nil else {
            throw .invalid(path: i.path + ".source", reason: "\"\(source)\" is not hand, list or receipt")
        }
        let purchase = try i.optionalString("purchase")
        guard (purchase == nil) == (source == "hand") else {
            throw .invalid(path: i.path + ".purchase", reason: "is given exactly when the item came from a list or a receipt")
        }
        return RestoredPantryItem(
            number: try i.integer("id"), name: name, quantity: try i.optionalString("quantity"), expires: try day(i, "expires")?.description,
            status: status, createdAt: try i.string("created_at"), closedAt: closed, source: source, purchase: purchase)
    }
}

/// A recurring rule as exported: its id, schedule, the expense it makes, and its times.
public struct RestoredRecurringRule: Sendable, Hashable {
    public let number: Int64
    public let kind: ExpenseKind
    public let amount: Money
    public let title, category, merchant, storeID, notes: String?
    /// `RecurringSchedule.Every`'s text, the anchor and last days.
    public let every, from: String
    public let until, nextDue: String?
    public let createdAt, updatedAt: String
}

/// A pantry item as exported.
public struct RestoredPantryItem: Sendable, Hashable {
    public let number: Int64
    public let name: String
    public let quantity, expires: String?
    /// open, used or discarded.
    public let status: String
    public let createdAt: String
    public let closedAt: String?
    /// hand, list or receipt; the purchase's expense id for the latter two.
    public var source: String = "hand"
    public var purchase: String?
}

/// A category as exported: name, kind, icon, colour and flags.
public struct RestoredCategory: Sendable, Hashable {
    public let category: Category
    public let icon: String?
    public let color: String?
    public let isDefault: Bool
    public let isActive: Bool
    /// As exported (null for a row older than the times, migration v27 / PostgreSQL v18).
    public let createdAt, updatedAt: String?
}

/// A period as exported, with the ids of its expenses.
public struct RestoredPeriod: Sendable, Hashable {
    /// The id users see (`periods list`), kept as exported.
    public let number: Int64
    public let name: String
    public let start: String
    public let end: String?
    public let expenseIDs: [String]
    public let createdAt, updatedAt: String?
}

/// One user's data read from an export, checked, for `UserDataStore.restore`.
public struct UserRestoreData: Sendable {
    /// The user the rows are written for (`retargeted(to:)` changes it).
    public private(set) var userID: String
    public var displayName: String?
    public var email: String?
    /// `YYYY-MM-DDTHH:MM:SSZ`, as exported.
    public var createdAt: String
    public var settings = UserSettings()
    public var notificationSettings = NotificationSettings()
    public var categories: [RestoredCategory] = []
    /// In the export's (id) order.
    public var expenses: [Expense] = []
    public var expenseTimes: [ExpenseTimes] = []
    /// The shared stores the user's rows name; each must exist where they are restored.
    public var storeIDs: [String] = []
    public var periods: [RestoredPeriod] = []
    public var positions: [Position] = []
    /// The stays a location history recorded, by start.
    public var visits: [Visit] = []
    /// Budgets with their ids (`number`), thresholds and creation times.
    public var budgets: [Budget] = []
    public var recurring: [RestoredRecurringRule] = []
    public var pantry: [RestoredPantryItem] = []
    /// The products the price records and marks name (UserRestore+Shared.swift).
    public var products: [RestoredProduct] = []
    /// In the export's order (recorded instant, then id).
    public var priceRecords: [RestoredPriceRecord] = []
    public var productTags: [RestoredProductTag] = []
    public var productMarks: [RestoredProductMark] = []
    public var shoppingLists: [RestoredShoppingList] = []
    /// Oldest first, kept photos included; `sequence` as exported.
    public var receipts: [Receipt] = []
    public var community = RestoredCommunity()
    /// Added stores (`mine-N`, kept as exported) and the favourite and default ids.
    public var storeChoices = StoreChoiceRecord()
    /// How many webhooks and API tokens the export listed: not restored (no secrets are exported).
    public var webhooksLeftOut = 0
    public var tokensLeftOut = 0

    init(userID: String, displayName: String?, email: String?, createdAt: String) {
        self.userID = userID
        self.displayName = displayName
        self.email = email
        self.createdAt = createdAt
    }

    /// The same data for another user id (`users import --as NEWID`).
    public func retargeted(to user: String) -> UserRestoreData {
        var copy = self
        copy.userID = user
        copy.expenses = expenses.map { var e = $0; e.userID = user; return e }
        copy.budgets = budgets.map { var b = $0; b.userID = user; return b }
        copy.receipts = receipts.map { var r = $0; r.userID = user; return r }
        return copy
    }

    /// Rows written, for the CLI's summary.
    public var summary: String {
        "\(expenses.count) expenses, \(categories.count) categories, \(periods.count) periods, \(positions.count) positions, \(visits.count) visits, \(budgets.count) budgets, \(recurring.count) recurring rules, \(pantry.count) pantry items, \(priceRecords.count) price records, \(productTags.count) product tags, \(productMarks.count) product marks, \(shoppingLists.count) shopping lists, \(receipts.count) receipts, \(community.posts.count) community entries, \(community.comments.count) comments"
    }
}

/// Why an export could not be restored.
public enum UserRestoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A value at `path` (`expenses[12].amount`) is wrong.
    case invalid(path: String, reason: String)
    case tooLarge(bytes: Int, limit: Int)
    /// A section this version cannot restore holds rows.
    case unsupported(section: String, rows: Int)
    /// The target user already holds rows (`rows`: how many, over all tables).
    case notEmpty(user: String, rows: Int)
    /// A store the export names is not in the database.
    case unknownStore(id: String)

    public var description: String {
        switch self {
        case .invalid(let path, let reason):
            return path.isEmpty ? "the export \(reason)" : "\(path): \(reason)"
        case .tooLarge(let bytes, let limit):
            return "the export is \(bytes) bytes; at most \(limit) are read"
        case .unsupported(let section, let rows):
            return "the export's \(section) holds \(rows) row(s), which this version of `users import` cannot restore yet; nothing was written"
        case .notEmpty(let user, let rows):
            return "user \"\(user)\" already has data (\(rows) rows); restore into an empty user: `geospend users delete \(user)` first (export it if still wanted), or restore under another id with --as NEWID"
        case .unknownStore(let id):
            return "the export names store \"\(id)\", which is not in this database; import the stores first (`geospend import stores`), then restore"
        }
    }
}

extension JSONValue {
    /// Compact JSON text (numbers as their literal text), to hand a part to another reader.
    var text: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return n
        case .string(let s): return JSONOutput.string(s).serialized(pretty: false)
        case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let members): return "{" + members.map { JSONOutput.string($0.key).serialized(pretty: false) + ":" + $0.value.text }.joined(separator: ",") + "}"
        }
    }
}

/// A value in the document with its JSON path, for errors that say where.
struct Node {
    let value: JSONValue
    let path: String

    func member(_ key: String) -> Node {
        Node(value: value[key] ?? .null, path: path.isEmpty ? key : "\(path).\(key)")
    }

    func child(_ key: String) throws(UserRestoreError) -> Node {
        let n = member(key)
        guard case .object = n.value else { throw .invalid(path: n.path, reason: "is \(n.value.typeName); expected an object") }
        return n
    }

    func array(_ key: String) throws(UserRestoreError) -> [Node] {
        guard let items = try optionalArray(key) else { throw .invalid(path: member(key).path, reason: "is missing; expected an array") }
        return items
    }

    func optionalArray(_ key: String) throws(UserRestoreError) -> [Node]? {
        let n = member(key)
        switch n.value {
        case .null: return nil
        case .array(let items): return items.enumerated().map { Node(value: $1, path: "\(n.path)[\($0)]") }
        default: throw .invalid(path: n.path, reason: "is \(n.value.typeName); expected an array")
        }
    }

    func stringValue() throws(UserRestoreError) -> String {
        guard case .string(let s) = value else { throw .invalid(path: path, reason: "is \(value.typeName); expected a string") }
        return s
    }

    func string(_ key: String) throws(UserRestoreError) -> String { try member(key).stringValue() }

    func optionalString(_ key: String) throws(UserRestoreError) -> String? {
        let n = member(key)
        if n.value == .null { return nil }
        return try n.stringValue()
    }

    func identifier(_ key: String) throws(UserRestoreError) -> String {
        let text = try string(key)
        guard !text.isEmpty, text == Identity.normalized(text) else {
            throw .invalid(path: member(key).path, reason: "\"\(text)\" is not a user id (non-empty, NFC)")
        }
        return text
    }

    func bool(_ key: String) throws(UserRestoreError) -> Bool {
        let n = member(key)
        guard case .bool(let b) = n.value else { throw .invalid(path: n.path, reason: "is \(n.value.typeName); expected true or false") }
        return b
    }

    func optionalInteger(_ key: String) throws(UserRestoreError) -> Int64? {
        let n = member(key)
        switch n.value {
        case .null: return nil
        case .number(let text):
            guard let i = Int64(text) else { throw .invalid(path: n.path, reason: "\(text) is not a whole number within 64 bits") }
            return i
        default: throw .invalid(path: n.path, reason: "is \(n.value.typeName); expected a whole number")
        }
    }

    func integer(_ key: String) throws(UserRestoreError) -> Int64 {
        guard let i = try optionalInteger(key) else { throw .invalid(path: member(key).path, reason: "is missing; expected a whole number") }
        return i
    }

    func optionalDouble(_ key: String) throws(UserRestoreError) -> Double? {
        let n = member(key)
        switch n.value {
        case .null: return nil
        case .number(let text):
            guard let d = Double(text), d.isFinite else { throw .invalid(path: n.path, reason: "\(text) is not a finite number") }
            return d
        default: throw .invalid(path: n.path, reason: "is \(n.value.typeName); expected a number")
        }
    }

    /// An RFC 3339 instant, as milliseconds since 1970.
    func instant(_ key: String) throws(UserRestoreError) -> Int64 {
        let text = try string(key)
        do { return try Timestamp(parsing: text).epochMilliseconds } catch { throw .invalid(path: member(key).path, reason: "\(error)") }
    }

    func coordinate() throws(UserRestoreError) -> Coordinate {
        guard let lat = try optionalDouble("lat") else { throw .invalid(path: member("lat").path, reason: "is missing") }
        guard let lon = try optionalDouble("lon") else { throw .invalid(path: member("lon").path, reason: "is missing") }
        do { return try Coordinate(latitude: lat, longitude: lon) } catch { throw .invalid(path: path, reason: "\(error)") }
    }
}
