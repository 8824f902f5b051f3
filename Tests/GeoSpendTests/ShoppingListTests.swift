import Testing

@testable import GeoSpend

/// Shopping lists' rules (issue 18, Phase 3): name not empty, budget > 0, an item already on the
/// list adds to its quantity, the estimate over the budget is "budget exceeded".
@Suite struct ShoppingListTests {
    static let eur = try! Currency(code: "EUR")

    static func list(_ budget: String = "10.00") -> ShoppingList {
        ShoppingList(id: 1, userID: "ann", name: "Week", budget: try! Money(parsing: budget, currency: eur), items: [])
    }

    @Test func nameAndBudget() throws {
        #expect(throws: ValueError.self) { try ShoppingList.checked(name: "  ") }
        #expect(try ShoppingList.checked(name: " Week ") == "Week")
        #expect(throws: ValueError.self) { try Money(parsing: "0", currency: Self.eur) }
        #expect(throws: ValueError.self) { try Money(parsing: "-5", currency: Self.eur) }
    }

    @Test func addingAnItemTwiceAddsItsQuantity() throws {
        var l = Self.list()
        l = try l.adding(ShoppingListItem(parsing: "Milch=2"))
        l = try l.adding(ShoppingListItem(parsing: "Äpfel=1kg"))
        l = try l.adding(ShoppingListItem(parsing: "milch=3"))
        l = try l.adding(ShoppingListItem(parsing: "Apfel=500g"))
        #expect(l.items.map(\.name) == ["Milch", "Äpfel"])
        #expect(l.items.map(\.quantityText) == ["5", "1.5 kg"])
        #expect(throws: ValueError.self) { try l.adding(ShoppingListItem(parsing: "Milch=1l")) }
    }

    @Test func budgetExceeded() {
        let stores = [BasketTests.store("a")]
        let records = [BasketTests.record("milch", "a", "4.00"), BasketTests.record("brot", "a", "3.00")]
        var l = Self.list("10.00")
        l.items = [ShoppingListItem(name: "Milch", want: .packs(2)), ShoppingListItem(name: "Brot", want: .packs(1))]
        let items = l.items.map { BasketItem(name: $0.name, productID: $0.name.lowercased(), want: $0.want) }
        let basket = BasketTests.run(items, records, stores)
        let over = ShoppingListEstimate(list: l, basket: basket)
        #expect(over.costMinor == 1100)
        #expect(over.budgetExceeded == true)
        l.budget = try! Money(parsing: "11.00", currency: Self.eur)
        #expect(ShoppingListEstimate(list: l, basket: basket).budgetExceeded == false)
        l.budget = try! Money(parsing: "11", currency: Currency(code: "SEK"))
        #expect(ShoppingListEstimate(list: l, basket: basket).budgetExceeded == nil)
    }
}
