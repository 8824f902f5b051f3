import Foundation

/// A shopping list (Phase 3): a name, a budget, items with quantities. Its estimated cost is the
/// cheapest basket within reach (`Basket`); over the budget it says "budget exceeded".
public struct ShoppingList: Sendable, Hashable {
    /// The id users see, numbered per user.
    public var id: Int64
    public var userID: String
    public var name: String
    public var budget: Money
    public var items: [ShoppingListItem]
    /// When `lists complete` turned it into an expense; nil while open.
    public var completedExpenseID: String?

    public init(id: Int64, userID: String, name: String, budget: Money, items: [ShoppingListItem], completedExpenseID: String? = nil) {
        self.id = id
        self.userID = userID
        self.name = name
        self.budget = budget
        self.items = items
        self.completedExpenseID = completedExpenseID
    }

    /// The list with `item` added: an item already on it (same name, case and accents folded)
    /// gets the quantity added, in the same kind of quantity.
    /// - Throws: `ValueError` when the quantities cannot be added (`2` packs and `1l`).
    public func adding(_ item: ShoppingListItem) throws(ValueError) -> ShoppingList {
        var copy = self
        guard let i = items.firstIndex(where: { $0.key == item.key }) else {
            copy.items.append(item)
            return copy
        }
        let old = items[i]
        if old.check != nil {
            throw .invalidValue(item.name, reason: "is checked off already; uncheck it first (`geospend lists uncheck`) or buy more later")
        }
        switch (old.want, item.want) {
        case (.packs(let a), .packs(let b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            if overflow { throw tooMuch(old) }
            copy.items[i].want = .packs(sum)
        case (.amount(let a), .amount(let b)) where a.dimension == b.dimension:
            let (sum, overflow) = a.thousandths.addingReportingOverflow(b.thousandths)
            if overflow { throw tooMuch(old) }
            copy.items[i].want = .amount(PackSize(dimension: a.dimension, thousandths: sum))
        default:
            throw .invalidValue(
                item.name, reason: "is on the list as \(old.quantityText); add it in the same kind of quantity (a count, or an amount in kg, g, l or ml)")
        }
        return copy
    }

    private func tooMuch(_ old: ShoppingListItem) -> ValueError {
        .invalidValue(old.name, reason: "is on the list as \(old.quantityText); adding more would pass the largest quantity GeoSpend counts")
    }

    /// Completed by `lists complete`, or with every item checked off (`lists check`).
    public var isCompleted: Bool { completedExpenseID != nil || (!items.isEmpty && items.allSatisfy { $0.check != nil }) }

    /// The index of the item named `name` (case and accents aside), or nil.
    public func itemIndex(named name: String) -> Int? {
        let key = ShoppingListItem(name: name, want: .packs(1)).key
        return items.firstIndex { $0.key == key }
    }

    /// A list's name, checked as other names are (1–100 characters, one line). The budget needs
    /// no check here: `Money` is never zero or negative.
    public static func checked(name: String) throws(ValueError) -> String {
        try DisplayName.checked(name, of: "list", example: "Weekend groceries")
    }
}

public struct ShoppingListItem: Sendable, Hashable {
    public var name: String
    public var want: BasketItem.Want
    /// Set when `lists check` bought it: the purchase it stored.
    public var check: ShoppingListCheck?

    public init(name: String, want: BasketItem.Want, check: ShoppingListCheck? = nil) {
        self.name = name
        self.want = want
        self.check = check
    }

    /// `Milch=2` or `Äpfel=1.5kg` (as basket items).
    public init(parsing spec: String) throws(ValueError) {
        let (name, want) = try BasketItem.parseSpec(spec)
        self.init(name: name, want: want)
    }

    /// The name folded for "already on the list": case and accents, as names are matched.
    var key: String { name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }

    /// `2` or `1.5 kg`.
    public var quantityText: String {
        switch want {
        case .packs(let n): String(n)
        case .amount(let a): a.description
        }
    }
}

/// What `lists check` stored for one item: the purchase expense, the price record it added
/// (nil when the user had recorded that exact price before: `PriceSaveOutcome.unchanged`),
/// and what was paid for the item's whole quantity.
public struct ShoppingListCheck: Sendable, Hashable {
    public var expenseID: String
    public var priceRecordID: Int64?
    public var paidMinor: Int64

    public init(expenseID: String, priceRecordID: Int64?, paidMinor: Int64) {
        self.expenseID = expenseID
        self.priceRecordID = priceRecordID
        self.paidMinor = paidMinor
    }
}

/// A list's estimated cost against its budget.
public struct ShoppingListEstimate: Sendable {
    /// The cheapest store within reach (`Basket`'s first), nil when no store has enough items.
    public let best: BasketStoreLine?
    public let currency: Currency?
    /// The best store's total with its travel cost (0 without --cost-per-km).
    public var costMinor: Int64? { best?.totalWithTravelMinor }
    /// Whether the estimate is over the budget; nil when there is no estimate or it is in
    /// another currency than the budget (never compared across currencies).
    public let budgetExceeded: Bool?

    public init(list: ShoppingList, basket: BasketResult) {
        best = basket.stores.first
        currency = basket.currency
        if let best, basket.currency == list.budget.currency {
            budgetExceeded = best.totalWithTravelMinor > list.budget.minorUnits
        } else {
            budgetExceeded = nil
        }
    }
}
