import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/lists`: the token user's shopping lists as `geospend lists add|show|complete` keep
/// them. GET lists them, GET `/{id}` is `lists show --id ID --own-prices --format json` (the
/// estimate takes `basket`'s parameters, `all-users=true` too), POST creates (`{"name", "budget", "currency", "items": ["Milch=2"]}`),
/// POST `/{id}/items` adds items (`{"items": […]}`), POST `/{id}/complete` marks it bought
/// (`{"store", "at", "prices": ["Milch=2.58"]}`). Another user's list id is a 404.
struct ListRoutes {
    let store: any Backend
    let settings: ServiceSettings

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("lists", use: list)
        group.post("lists", use: create)
        group.get("lists/{id}", use: show)
        group.post("lists/{id}/items", use: addItems)
        group.post("lists/{id}/complete", use: complete)
        group.patch("lists/{id}", use: edit)
        group.delete("lists/{id}", use: delete)
        group.post("lists/{id}/check", use: check)
        group.post("lists/{id}/uncheck", use: uncheck)
        group.post("lists/{id}/remove", use: remove)
    }

    struct Body: Decodable {
        var name: String?
        var budget: String?
        var currency: String?
        var items: [String]?
        var store: String?
        var at: String?
        var prices: [String]?
        var overBudget: Bool?
        var item: String?
        var price: String?
        var expires: String?

        enum CodingKeys: String, CodingKey {
            case name, budget, currency, items, store, at, prices, item, price, expires
            case overBudget = "over_budget"
        }
    }

    static func body(_ request: Request) async throws -> Body {
        let bytes = try await request.body.collect(upTo: 1 << 20)
        do { return try JSONDecoder().decode(Body.self, from: Data(buffer: bytes)) } catch {
            throw Problem(.badRequest, "the body must be a JSON object: name, budget, currency and items (a list like [\"Milch=2\"]), or store, at and prices (a list like [\"Milch=2.58\"])")
        }
    }

    /// `lists show --user U --format json`; with `status=open` (or `all`), `lists list [--all]
    /// --format json`: open lists (or all), newest first.
    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        var lists = try await store.lists(userID: user)
        switch QueryParameters(request).string("status") {
        case nil: break
        case "open": lists = ShoppingListFields.listed(lists, all: false)
        case "all": lists = ShoppingListFields.listed(lists, all: true)
        case let other?: throw Problem(.badRequest, "status=\(OutputEscaping.visible(other)): give open or all")
        }
        return JSONResponse.make(.array(lists.map { ShoppingListFields.json($0, estimate: nil) }))
    }

    /// `lists edit ID [--name] [--budget]`: `{"name", "budget"}`.
    @Sendable func edit(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try Self.id(context)
        let body = try await Self.body(request)
        let list = try await Self.found { try await ShoppingListFields.edit(user: user, id: id, name: body.name, budget: body.budget, store: store) }
        return JSONResponse.make(ShoppingListFields.json(list, estimate: nil))
    }

    /// `lists delete ID`: 204.
    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try Self.id(context)
        guard try await store.deleteList(userID: user, id: id) else { throw Problem(.notFound, ShoppingListFields.noList(id, user).message) }
        return Response(status: .noContent)
    }

    /// `lists check ID ITEM --price P [--store S] [--at T] [--expires D]`: `{"item", "price",
    /// "store", "at", "expires"}`; the list, with the purchase's `expense_id` and `total`.
    @Sendable func check(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try Self.id(context)
        let body = try await Self.body(request)
        guard let item = body.item, let price = body.price else { throw Problem(.badRequest, "item and price are required: {\"item\": \"Milch\", \"price\": \"1.29\"}") }
        let c = try await Self.found {
            try await ShoppingListFields.check(
                user: user, id: id, item: item, price: price, storeID: body.store, at: body.at, expires: body.expires, db: store)
        }
        guard case .object(let members) = ShoppingListFields.json(c.list, estimate: nil) else { throw Problem(.internalServerError, "") }
        return JSONResponse.make(.object(members + [("expense_id", .string(c.expense.id)), ("total", .string(c.expense.amount.decimalString))]))
    }

    /// `lists uncheck ID ITEM`: `{"item"}`.
    @Sendable func uncheck(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try Self.id(context)
        guard let item = try await Self.body(request).item else { throw Problem(.badRequest, "item is required: {\"item\": \"Milch\"}") }
        return JSONResponse.make(ShoppingListFields.json(try await Self.found { try await ShoppingListFields.uncheck(user: user, id: id, item: item, db: store) }, estimate: nil))
    }

    /// `lists remove ID ITEM`: `{"item"}`.
    @Sendable func remove(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try Self.id(context)
        guard let item = try await Self.body(request).item else { throw Problem(.badRequest, "item is required: {\"item\": \"Milch\"}") }
        return JSONResponse.make(
            ShoppingListFields.json(try await Self.found { try await ShoppingListFields.removeItem(user: user, id: id, item: item, store: store) }, estimate: nil))
    }

    /// `lists show --user U --id ID [--as-of …] [basket's options] --format json`.
    @Sendable func show(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try Self.id(context)
        let q = QueryParameters(request)
        let list = try await Self.found { try ShoppingListFields.list(id, of: user, in: try await store.lists(userID: user)) }
        let basket = try await BasketRoutes.reach(q, context: context, store: store, settings: settings).compare(list.items.map { ($0.name, $0.want) }, asOf: try BasketReach.day(q.string("as-of")), in: store)
        return JSONResponse.make(ShoppingListFields.json(list, estimate: ShoppingListEstimate(list: list, basket: basket)))
    }

    /// 201 with the new list as `lists show --format json` lists it.
    @Sendable func create(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let body = try await Self.body(request)
        guard let name = body.name, let budget = body.budget, let currency = body.currency else {
            throw Problem(.badRequest, "name, budget and currency are required")
        }
        let items = try ShoppingListFields.items(body.items ?? [])
        let list = try await ShoppingListFields.create(
            user: user, name: name, budget: budget, currency: currency, items: items, overBudget: body.overBudget ?? false, store: store)
        var response = JSONResponse.make(ShoppingListFields.json(list, estimate: nil))
        response.status = .created
        return response
    }

    @Sendable func addItems(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try Self.id(context)
        let body = try await Self.body(request)
        let specs = body.items ?? []
        guard !specs.isEmpty else { throw Problem(.badRequest, "give the items to add: {\"items\": [\"NAME[=QTY]\"]}") }
        let items = try ShoppingListFields.items(specs)
        let list = try await Self.found {
            try await ShoppingListFields.addItems(user: user, id: id, items: items, overBudget: body.overBudget ?? false, store: store)
        }
        return JSONResponse.make(ShoppingListFields.json(list, estimate: nil))
    }

    /// The completed list, with the expense it stored and how many price records.
    @Sendable func complete(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try Self.id(context)
        let body = try await Self.body(request)
        guard let storeID = body.store, let at = body.at else { throw Problem(.badRequest, "store and at are required") }
        let done = try await Self.found {
            try await ShoppingListFields.complete(user: user, id: id, storeID: storeID, at: at, prices: body.prices ?? [], db: store)
        }
        guard case .object(let members) = ShoppingListFields.json(done.list, estimate: nil) else { throw Problem(.internalServerError, "") }
        return JSONResponse.make(.object(members + [
            ("expense_id", .string(done.expense.id)), ("total", .string(done.expense.amount.decimalString)),
            ("price_records", .integer(Int64(done.prices))),
        ]))
    }

    /// Runs `body`; "no such list" is a 404 (another user's list included), other refusals 400.
    static func found<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let e as UsageError where e.message.contains("has no such list") {
            throw Problem(.notFound, e.message)
        }
    }

    static func id(_ context: ServiceContext) throws -> Int64 {
        let text = try context.parameters.require("id")
        guard let id = Int64(text) else { throw Problem(.notFound, "no list \"\(OutputEscaping.visible(text))\": list ids are whole numbers; GET /api/v1/lists lists them") }
        return id
    }
}
