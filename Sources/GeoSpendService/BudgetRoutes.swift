import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/budgets`: the token user's budgets as `geospend budgets list|add|delete|summary|
/// alerts` keep and measure them, answering with their `--format json` output. POST adds
/// (`{"name", "amount", "currency", "from", "to", "category", "every", "category-limits":
/// ["Food=200.00"]}`; zones are the CLI's so far), DELETE `/{id}` deletes, GET `/{id}/summary`
/// and `/alerts` measure on `as-of`. Another user's budget id is a 404, like a missing one.
struct BudgetRoutes {
    let store: any ServiceStore

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("budgets", use: list)
        group.post("budgets", use: create)
        group.delete("budgets/{id}", use: delete)
        group.get("budgets/{id}/summary", use: summary)
        group.get("budgets/alerts", use: alerts)
    }

    /// `budgets list --user U [--all] --format json`.
    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let all = try QueryParameters(request).flag("all")
        return JSONResponse.make(.array(try await store.budgets(userID: user, includeInactive: all).map(BudgetJSON.budget)))
    }

    /// The body of POST: `budgets add`'s options.
    struct Body: Decodable {
        var name: String?
        var amount: String?
        var currency: String?
        var from: String?
        var to: String?
        var category: String?
        var every: String?
        var categoryLimits: [String]?

        enum CodingKeys: String, CodingKey {
            case name, amount, currency, from, to, category, every
            case categoryLimits = "category-limits"
        }
    }

    /// 201 with `budgets add --format json`'s object (and the ids of budgets it deactivated).
    @Sendable func create(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let bytes = try await request.body.collect(upTo: 1 << 16)
        let body: Body
        do { body = try JSONDecoder().decode(Body.self, from: Data(buffer: bytes)) } catch {
            throw Problem(.badRequest, "the body must be a JSON object of strings: name, amount, currency, from, to (YYYY-MM-DD), category, every, category-limits (a list like [\"Food=200.00\"])")
        }
        guard let name = body.name, let amount = body.amount, let currency = body.currency, let from = body.from, let to = body.to else {
            throw Problem(.badRequest, "name, amount, currency, from and to are required")
        }
        let every = try body.every.map { text in
            guard let e = Budget.Recurrence(rawValue: text) else { throw Problem(.badRequest, "every: \"\(OutputEscaping.visible(text))\" is not week, month or year") }
            return e
        }
        let budget = try await BudgetFields.new(
            user: user, name: name, amount: amount, currency: currency, from: from, to: to, category: body.category, every: every,
            limits: body.categoryLimits ?? [], zone: { nil }, store: store)
        guard let saved = try await store.saveBudget(budget) else { throw Problem(.conflict, "the budget could not be saved; retry") }
        var response = JSONResponse.make(BudgetFields.savedJSON(saved))
        response.status = .created
        return response
    }

    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context)
        guard try await store.deleteBudget(id: id, userID: user) else { throw Self.noBudget(id, user) }
        return JSONResponse.make(.object([("deleted", .integer(id))]))
    }

    /// `budgets summary --id ID --as-of DAY --format json`.
    @Sendable func summary(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context)
        let asOf = try BudgetFields.day(try QueryParameters(request).required("as-of"), "--as-of")
        guard let b = try await store.budget(id: id, userID: user) else { throw Self.noBudget(id, user) }
        return JSONResponse.make(BudgetJSON.summary(try await BudgetFields.summary(b, asOf: asOf, store: store)))
    }

    /// `budgets alerts --as-of DAY --format json`.
    @Sendable func alerts(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let day = try BudgetFields.day(try QueryParameters(request).required("as-of"), "--as-of")
        var summaries: [BudgetSummary] = []
        for b in try await store.budgets(userID: user, includeInactive: false) { summaries.append(try await BudgetFields.summary(b, asOf: day, store: store)) }
        return JSONResponse.make(.array(BudgetAlert.alerts(summaries).map(BudgetJSON.alert)))
    }

    func checkedUser(_ context: ServiceContext) async throws -> String {
        let user = Identity.normalized(try context.user())
        try await NameChecks.user(user, in: store, database: QueryRoutes.database)
        return user
    }

    static func id(_ context: ServiceContext) throws -> Int64 {
        let text = try context.parameters.require("id")
        guard let id = Int64(text) else { throw Problem(.notFound, "no budget \"\(OutputEscaping.visible(text))\": budget ids are whole numbers; GET /api/v1/budgets lists them") }
        return id
    }

    static func noBudget(_ id: Int64, _ user: String) -> Problem { Problem(.notFound, BudgetFields.noBudget(id, user).message) }
}
