import Foundation

/// Something bought that is kept until used (issue 38, seed 000 L734–789): a name, an optional
/// quantity as the user wrote it, an optional expiry day. Open until `pantry use` or
/// `pantry discard` closes it.
public struct PantryItem: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case open, used, discarded
    }

    /// Where it came from: added by hand (`pantry add`), with a shopping-list item checked off
    /// (`lists check --expires`) or with a receipt confirmed (`receipts confirm --expires`).
    public enum Source: String, Sendable, Hashable, CaseIterable {
        case hand, list, receipt
    }

    /// The id users see, numbered per user (1, 2, 3 …, never reused).
    public var id: Int64
    public var userID: String
    public var name: String
    /// As given (`2`, `1.5kg`); nil when none was.
    public var quantity: String?
    /// The last day it is good; nil when it does not expire.
    public var expires: LocalDay?
    public var status: Status
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    public var createdAt: String
    /// When `use` or `discard` closed it; nil while open.
    public var closedAt: String?
    public var source: Source
    /// The id of the purchase (expense) it came with; nil for one added by hand.
    public var purchaseID: String?

    public init(
        id: Int64, userID: String, name: String, quantity: String?, expires: LocalDay?, status: Status, createdAt: String,
        closedAt: String?, source: Source = .hand, purchaseID: String? = nil
    ) {
        self.source = source
        self.purchaseID = purchaseID
        self.id = id
        self.userID = userID
        self.name = name
        self.quantity = quantity
        self.expires = expires
        self.status = status
        self.createdAt = createdAt
        self.closedAt = closedAt
    }

    /// The day its expiry reminder falls: `PantryExpiry.leadDays` before it expires.
    public var reminderDay: LocalDay? { expires?.adding(days: -PantryExpiry.leadDays) }
}

/// A new pantry item, checked (`pantry add`, `POST /api/v1/pantry`).
public struct PantryFields: Sendable, Hashable {
    public var name: String
    public var quantity: String?
    public var expires: LocalDay?

    public init(name: String, quantity: String?, expires: LocalDay?) {
        self.name = name
        self.quantity = quantity
        self.expires = expires
    }

    /// The fields as the CLI's options give them, checked with the CLI's words.
    /// - Throws: `UsageError` naming the option and the fix.
    public static func checked(name: String, quantity: String?, expires: String?) throws -> PantryFields {
        let n: String
        do { n = try DisplayName.checked(name, of: "pantry item", example: "Milch") } catch { throw UsageError("--name: \(error)") }
        var q: String?
        if let quantity {
            // The list's quantity forms: a count (2) or an amount (1.5kg, 500g, 2l).
            do {
                let (_, want) = try BasketItem.parseSpec("x=\(quantity)")
                q = switch want {
                case .packs(let p): String(p)
                case .amount(let a): a.description
                }
            } catch {
                throw UsageError("--quantity \(quantity): \(error); give a count (2) or an amount (1.5kg, 500g, 2l)")
            }
        }
        var day: LocalDay?
        if let expires {
            do { day = try LocalDay(parsing: expires) } catch { throw UsageError("--expires: \(error); give a day like 2025-06-30") }
        }
        return PantryFields(name: n, quantity: q, expires: day)
    }
}

extension PantryFields {
    /// The pantry item a purchase makes (`lists check --expires`, `receipts confirm --expires`):
    /// the item's name and quantity (as `pantry add` writes them), expiring on `expires`.
    /// - Parameter option: the option that gave the day, named in the error.
    /// - Throws: `UsageError` when `expires` is not a day.
    public static func purchase(name: String, want: BasketItem.Want?, expires: String, option: String) throws -> PantryFields {
        let day: LocalDay
        do { day = try LocalDay(parsing: expires) } catch { throw UsageError("\(option) \(expires): \(error); give a day like 2025-06-30") }
        let quantity: String? = switch want {
        case .packs(let p)?: String(p)
        case .amount(let a)?: a.description
        case nil: nil
        }
        return PantryFields(name: String(name.prefix(400)), quantity: quantity, expires: day)
    }
}

/// `pantry list`'s order and JSON, shared by the CLI and the service.
public enum PantryListing {
    /// Open items, the soonest expiry first (those without one last, then by id); with `all`,
    /// the closed ones after them by id.
    /// - Complexity: O(n log n).
    public static func ordered(_ items: [PantryItem], all: Bool) -> [PantryItem] {
        let open = items.filter { $0.status == .open }.sorted { a, b in
            switch (a.expires, b.expires) {
            case (let x?, let y?): (x, a.id) < (y, b.id)
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): a.id < b.id
            }
        }
        return all ? open + items.filter { $0.status != .open }.sorted { $0.id < $1.id } : open
    }

    public static func json(_ i: PantryItem) -> JSONOutput {
        .object([
            ("id", .integer(i.id)), ("user", .string(i.userID)), ("name", .string(i.name)),
            ("quantity", i.quantity.map(JSONOutput.string) ?? .null), ("expires", i.expires.map { .string($0.description) } ?? .null),
            ("status", .string(i.status.rawValue)), ("created_at", .string(i.createdAt)),
            ("closed_at", i.closedAt.map(JSONOutput.string) ?? .null), ("source", .string(i.source.rawValue)),
            ("purchase", i.purchaseID.map(JSONOutput.string) ?? .null),
        ])
    }

    /// The user's item `id`, or a usage error saying where to see them.
    public static func noItem(_ id: Int64, _ user: String) -> UsageError {
        UsageError("\(id): \(user) has no such pantry item (see `geospend pantry list --user \(user) --all`)")
    }

    /// Closes the user's item: used or discarded. - Throws: `UsageError` when there is none,
    /// or when it is closed already.
    public static func close(user: String, id: Int64, as status: PantryItem.Status, store: some PantryStore) async throws -> PantryItem {
        guard let before = try await store.pantryItems(userID: user).first(where: { $0.id == id }) else { throw noItem(id, user) }
        guard before.status == .open else { throw UsageError("\(id): \(before.name) is already \(before.status.rawValue)") }
        guard let after = try await store.closePantryItem(userID: user, id: id, as: status) else { throw noItem(id, user) }
        return after
    }

    /// The user's purchase predictions as of `day` (`pantry predict`).
    public static func predictions(user: String, asOf day: LocalDay, store: some PriceStore) async throws -> [PurchasePrediction] {
        PurchasePrediction.predictions(try await store.priceRecords(PriceQuery(userID: user, to: day)), asOf: day)
    }
}
