import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/budgets`: the token user's budgets as `geospend budgets list|add|edit|delete|summary|
/// alerts` keep and measure them, answering with their `--format json` output. POST adds
/// (`{"name", "amount", "currency", "from", "to", "category", "every", "category-limits":
/// ["Food=200.00"], "zone-around": "60.1699,24.9384", "zone-radius": "400m", "thresholds": [50, 80, 100]}`), PATCH `/{id}`
/// edits (`budgets edit`'s options; `once` and `no-category-limits` are booleans), DELETE
/// `/{id}` deletes, GET `/{id}/summary` and `/alerts` measure on `as-of`. Another user's budget
/// id is a 404, like a missing one.
struct BudgetRoutes {
    let store: any Backend

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("budgets", use: list)
        group.post("budgets", use: create)
        group.patch("budgets/{id}", use: edit)
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
        var zoneAround: String?
        var zoneRadius: String?
        /// Whole percentages 1–1000 (`--thresholds`).
        var thresholds: [Int64]?
        // PATCH only
        var once: Bool?
        var noCategoryLimits: Bool?

        enum CodingKeys: String, CodingKey {
            case name, amount, currency, from, to, category, every, once, thresholds
            case categoryLimits = "category-limits", zoneAround = "zone-around", zoneRadius = "zone-radius"
            case noCategoryLimits = "no-category-limits"
        }

        static func decoded(_ request: Request) async throws -> Body {
            let bytes = try await request.body.collect(upTo: 1 << 16)
            do { return try JSONDecoder().decode(Body.self, from: Data(buffer: bytes)) } catch {
                throw Problem(.badRequest, "the body must be a JSON object of strings: name, amount, currency, from, to (YYYY-MM-DD), category, every, category-limits (a list like [\"Food=200.00\"]), zone-around (LAT,LON), zone-radius, thresholds (a list of whole percentages like [50, 80, 100]); PATCH also takes once and no-category-limits (true or false)")
            }
        }

        /// `thresholds`, checked as `--thresholds` is (400 with the reason).
        func checkedThresholds() throws -> [Int64]? {
            try thresholds.map { values in
                do { return try BudgetThresholds.checked(values, option: "thresholds") } catch let e as UsageError { throw Problem(.badRequest, e.message) }
            }
        }

        func recurrence() throws -> Budget.Recurrence? {
            try every.map { text in
                guard let e = Budget.Recurrence(rawValue: text) else { throw Problem(.badRequest, "every: \"\(OutputEscaping.visible(text))\" is not week, month or year") }
                return e
            }
        }

        /// `zone-around` and `zone-radius` (both or neither), as `--zone-around`/`--zone-radius`.
        func zone() throws -> BudgetZone? {
            switch (zoneAround, zoneRadius) {
            case (nil, nil): return nil
            case (let around?, let radius?): return try BudgetFields.circleZone(around: around, radius: radius)
            default: throw Problem(.badRequest, "zone-around and zone-radius go together, e.g. \"zone-around\": \"60.1699,24.9384\", \"zone-radius\": \"400m\"")
            }
        }
    }

    /// 201 with `budgets add --format json`'s object (and the ids of budgets it deactivated).
    @Sendable func create(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let body = try await Body.decoded(request)
        guard let name = body.name, let amount = body.amount, let currency = body.currency, let from = body.from, let to = body.to else {
            throw Problem(.badRequest, "name, amount, currency, from and to are required")
        }
        guard body.once == nil, body.noCategoryLimits == nil else { throw Problem(.badRequest, "once and no-category-limits are for PATCH (an edit)") }
        let every = try body.recurrence()
        let budget = try await BudgetFields.new(
            user: user, name: name, amount: amount, currency: currency, from: from, to: to, category: body.category, every: every,
            limits: body.categoryLimits ?? [], zone: body.zone, thresholds: try body.checkedThresholds(), store: store)
        guard let saved = try await store.saveBudget(budget) else { throw Problem(.conflict, "the budget could not be saved; retry") }
        var response = JSONResponse.make(BudgetFields.savedJSON(saved))
        response.status = .created
        return response
    }

    /// `budgets edit --format json`: 200 with the changed budget (and the ids it deactivated).
    @Sendable func edit(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context)
        let body = try await Body.decoded(request)
        guard body.currency == nil, body.category == nil, body.zoneAround == nil, body.zoneRadius == nil else {
            throw Problem(.badRequest, "currency, category and zone make a budget's scope and cannot be edited: add a new budget (POST /api/v1/budgets) to change them")
        }
        var changes = BudgetFields.Changes()
        (changes.name, changes.amount, changes.from, changes.to, changes.every) = (body.name, body.amount, body.from, body.to, try body.recurrence())
        (changes.once, changes.categoryLimits, changes.noCategoryLimits) = (body.once ?? false, body.categoryLimits ?? [], body.noCategoryLimits ?? false)
        changes.thresholds = try body.checkedThresholds()
        let budget: Budget
        do { budget = try await BudgetFields.edited(id: id, user: user, changes, store: store) } catch let e as UsageError where e == BudgetFields.noBudget(id, user) {
            throw Self.noBudget(id, user)
        }
        guard let saved = try await store.saveBudget(budget) else { throw Self.noBudget(id, user) }
        return JSONResponse.make(BudgetFields.savedJSON(saved))
    }

    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context)
        guard try await store.deleteBudget(id: id, userID: user) else { throw Self.noBudget(id, user) }
        return JSONResponse.make(.object([("deleted", .integer(id))]))
    }

    /// `budgets summary --id ID [--as-of DAY] --format json`; no `as-of`: today in the user's zone, else UTC.
    @Sendable func summary(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context)
        let asOf = try await BudgetFields.asOf(
            QueryParameters(request).string("as-of"), "--as-of", user: user, store: store, else: TimeZone(identifier: "UTC")!)
        guard let b = try await store.budget(id: id, userID: user) else { throw Self.noBudget(id, user) }
        return JSONResponse.make(BudgetJSON.summary(try await BudgetFields.summary(b, asOf: asOf, store: store)))
    }

    /// `budgets alerts [--as-of DAY] --format json`; no `as-of`: today in the user's zone, else UTC.
    @Sendable func alerts(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let day = try await BudgetFields.asOf(
            QueryParameters(request).string("as-of"), "--as-of", user: user, store: store, else: TimeZone(identifier: "UTC")!)
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
