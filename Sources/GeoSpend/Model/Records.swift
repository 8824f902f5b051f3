/// What an expense is: money out, money in, or money moved between a user's own accounts.
public enum ExpenseKind: String, Sendable, Hashable, CaseIterable {
    case expense, income, transfer
}

/// Where an expense happened, with the device's accuracy radius when known.
public struct ExpenseLocation: Sendable, Hashable {
    public let coordinate: Coordinate
    /// The position's uncertainty radius in metres, if the source gave one.
    public let accuracyMeters: Double?

    public init(coordinate: Coordinate, accuracyMeters: Double? = nil) {
        self.coordinate = coordinate
        self.accuracyMeters = accuracyMeters
    }
}

/// One transaction of one user. The amount is always positive; `kind` gives the direction.
public struct Expense: Sendable, Hashable {
    public var id: String
    public var userID: String
    public var kind: ExpenseKind
    public var amount: Money
    public var occurredAt: Timestamp
    public var title: String?
    public var category: String?
    public var merchant: String?
    public var location: ExpenseLocation?
    public var storeID: String?
    public var notes: String?
    /// Input only: the period to assign the expense to when it is written, as the user gave it
    /// (an id or a name, `PeriodReference`), from an import's `period` column or `expenses add
    /// --period`. Stores never fill it in on read (the link is `ExpenseFilter.period`'s), and it
    /// is not part of `contentHash`: assigning a period is not a change of the transaction.
    public var period: String?

    public init(
        id: String, userID: String, kind: ExpenseKind = .expense, amount: Money, occurredAt: Timestamp,
        title: String? = nil, category: String? = nil, merchant: String? = nil,
        location: ExpenseLocation? = nil, storeID: String? = nil, notes: String? = nil, period: String? = nil
    ) {
        self.id = id
        self.userID = userID
        self.kind = kind
        self.amount = amount
        self.occurredAt = occurredAt
        self.title = title
        self.category = category
        self.merchant = merchant
        self.location = location
        self.storeID = storeID
        self.notes = notes
        self.period = period
    }

    /// A 64-bit FNV-1a hash of every field but `period`, used to tell "the same row again" (re-import, a no-op)
    /// from "the same id with other content" (an error).
    public var contentHash: Int64 {
        var h = FNV1a()
        h.add(id); h.add(userID); h.add(kind.rawValue); h.add(String(amount.minorUnits))
        h.add(amount.currency.code); h.add(occurredAt.text); h.add(title); h.add(category)
        // `description` is the text "\(x)" gives, without an interpolation buffer.
        h.add(merchant); h.add(location?.coordinate.latitude.description)
        h.add(location?.coordinate.longitude.description)
        h.add(location?.accuracyMeters?.description); h.add(storeID); h.add(notes)
        return Int64(bitPattern: h.value)
    }
}

/// A shop, café, restaurant … from the shared store registry.
public struct Store: Sendable, Hashable {
    public var id: String
    /// The store's name; nil for the few unnamed places in OpenStreetMap data (CSV requires one).
    public var name: String?
    /// `shop:<value>` or `amenity:<value>`, as OpenStreetMap tags it, e.g. `amenity:cafe`.
    public var kind: String?
    public var brand: String?
    public var street: String?
    public var postcode: String?
    public var city: String?
    public var country: String?
    public var coordinate: Coordinate
    /// Where the record came from, e.g. `osm:node/56418307`.
    public var sourceID: String?

    public init(
        id: String, name: String?, kind: String? = nil, brand: String? = nil, street: String? = nil,
        postcode: String? = nil, city: String? = nil, country: String? = nil, coordinate: Coordinate,
        sourceID: String? = nil
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.brand = brand
        self.street = street
        self.postcode = postcode
        self.city = city
        self.country = country
        self.coordinate = coordinate
        self.sourceID = sourceID
    }

    /// The name, or the kind for unnamed places: `(amenity:cafe)`.
    public var displayName: String { name ?? "(\(kind ?? "unnamed"))" }

    public var contentHash: Int64 {
        var h = FNV1a()
        for field in [id, name, kind, brand, street, postcode, city, country, sourceID] { h.add(field) }
        h.add("\(coordinate.latitude)"); h.add("\(coordinate.longitude)")
        return Int64(bitPattern: h.value)
    }
}

/// A person whose expenses GeoSpend keeps. Created on first sight by the importer.
public struct User: Sendable, Hashable {
    public var id: String
    public var displayName: String?
    public init(id: String, displayName: String? = nil) {
        self.id = id
        self.displayName = displayName
    }
}

/// A user's category; names are unique per user and kind, compared case-insensitively for
/// ASCII letters (SQLite's `NOCASE`: `Café` and `CAFÉ` are two categories).
public struct Category: Sendable, Hashable {
    /// `transfer` (issue 38, MONO's Transfer category kind): the categories of money moved
    /// between one's own accounts, taken by rows of kind `transfer`, so "Savings" on a transfer
    /// is never an expense category that a budget or a spending total could count.
    public enum Kind: String, Sendable, Hashable, CaseIterable { case expense, income, transfer }
    public var name: String
    public var kind: Kind
    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    /// The set every new user starts with (docs/DOMAIN.md § Categories).
    public static let defaults: [Category] =
        ["Food", "Transport", "Shopping", "Bills", "Entertainment", "Health", "Education", "Others"]
        .map { Category(name: $0, kind: .expense) }
        + ["Salary", "Freelance", "Investment", "Business", "Others"].map { Category(name: $0, kind: .income) }

    /// The default categories' icon and colour (issue 38, MONO's defaults, seed L326–348): the
    /// icon an SF Symbols name, as MONO draws its categories, the colour one of MONO's named
    /// colours as `CategoryFields.namedColors` fixes it (`#RRGGBB`). The seed's own list was not
    /// available here (docs/DOMAIN.md, "Categories"): these are GeoSpend's choice in its style.
    /// Stored when a user is created, and by migration v28 (PostgreSQL v19) on the defaults of
    /// existing users that have neither an icon nor a colour.
    public static let defaultLooks: [Category: (icon: String, color: String)] = {
        let looks: [(Kind, String, String, String)] = [
            (.expense, "Food", "fork.knife", "orange"), (.expense, "Transport", "car.fill", "blue"),
            (.expense, "Shopping", "bag.fill", "pink"), (.expense, "Bills", "doc.text.fill", "red"),
            (.expense, "Entertainment", "tv.fill", "purple"), (.expense, "Health", "heart.fill", "mint"),
            (.expense, "Education", "book.fill", "indigo"), (.expense, "Others", "ellipsis.circle.fill", "gray"),
            (.income, "Salary", "banknote.fill", "green"), (.income, "Freelance", "laptopcomputer", "teal"),
            (.income, "Investment", "chart.line.uptrend.xyaxis", "cyan"), (.income, "Business", "briefcase.fill", "brown"),
            (.income, "Others", "ellipsis.circle.fill", "gray"),
        ]
        var table: [Category: (icon: String, color: String)] = [:]
        for (kind, name, icon, color) in looks { table[Category(name: name, kind: kind)] = (icon, CategoryFields.namedColors[color]!) }
        return table
    }()

    /// Each row kind takes categories of its own kind: expenses expense categories, income
    /// income categories, transfers transfer categories (docs/DOMAIN.md § Categories).
    public static func kind(for expenseKind: ExpenseKind) -> Kind {
        switch expenseKind {
        case .expense: return .expense
        case .income: return .income
        case .transfer: return .transfer
        }
    }
}
