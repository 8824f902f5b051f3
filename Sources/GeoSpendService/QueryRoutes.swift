import GeoSpend
import Hummingbird

/// `/api/v1/near`, `nearest-stores`, `insights`, `summary`: the CLI commands of the same names,
/// for the token's user, answering with their `--format json` output byte for byte.
struct QueryRoutes {
    let store: any Backend
    /// How the database is named in messages (the CLI names its path; a client never sees it).
    static let database = "the service's database"

    /// `insights` and `summary`, behind `TokenMiddleware`.
    func add(to group: RouterGroup<ServiceContext>) {
        group.get("insights", use: insights)
        group.get("summary", use: summary)
    }

    /// `near` and `nearest-stores`, each checking its token itself in its one read scope
    /// (`TokenCheckedRead`): `group` has no `TokenMiddleware`.
    func addCheckingTokens(to group: RouterGroup<ServiceContext>) {
        group.get("near", use: near)
        group.get("nearest-stores", use: nearestStores)
    }

    @Sendable func near(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let near = try await TokenCheckedRead.run(request, store: store) { token, reader in
            let user = token.userID
            let center = try q.center()
            let radius = try q.distance("radius") ?? RadiusResult.defaultRadius
            let (from, to) = try q.window()
            let categories = q.all("category")
            var filter = ExpenseFilter(userID: user, from: from, to: to, kinds: try q.kinds(), categories: Set(categories))
            // No user check: the token's row references its user (ON DELETE CASCADE), so in
            // this snapshot the user exists.
            try NameChecks.categories(categories, userID: user, in: reader)
            filter.period = try NameChecks.period(try q.int64("period"), user: user, in: reader, option: "period")?.id
            return RadiusResult(center: center, radius: radius, hits: try reader.expenses(within: radius, of: center, filter: filter))
        }
        return JSONResponse.make(QueryOutput.json(near))
    }

    /// The shared stores and the token user's own added ones (`nearest-stores --user`), never
    /// another user's.
    @Sendable func nearestStores(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let (shared, added, count, limit, kind) = try await TokenCheckedRead.run(request, store: store) { token, reader in
            let center = try q.center()
            let count = try q.int("k", in: 1...10_000) ?? 5
            let kind = q.string("kind")
            let limit = try q.distance("max-distance")
            try NameChecks.storeKind(kind, in: reader)
            let shared = NearestStoresResult(center: center, stores: try reader.nearestStores(to: center, limit: count, maxDistance: limit, kind: kind))
            return (shared, try reader.storeChoices(userID: token.userID).added, count, limit, kind)
        }
        return JSONResponse.make(QueryOutput.json(StoreChoiceListing.nearest(shared, added: added, limit: count, maxDistance: limit, kind: kind)))
    }

    @Sendable func insights(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try context.user()
        let (from, to) = try q.window()
        let kinds = try q.kinds()
        let categories = q.all("category")
        let grouping = try q.string("by").map { text in
            guard let g = PlaceGrouping(rawValue: text) else { throw Problem(.badRequest, "by: \"\(OutputEscaping.visible(text))\" is not store or place") }
            return g
        } ?? .place
        let request = InsightsRequest(
            userID: user, from: from, to: to, kinds: kinds.isEmpty ? [.expense] : kinds, categories: Set(categories),
            grouping: grouping, limit: try q.int("limit", in: 1...Int.max))
        // One snapshot: the names checked, the insights and the zone budgets.
        let (insights, zones) = try await store.read { reader in
            var request = request
            request.period = try q.checkedNames(user: user, categories: categories, in: reader)?.id
            return (try LocationInsights.compute(request, reader: reader), try ZoneBudgets.summaries(in: reader, user: user, asOf: to?.localDate))
        }
        return JSONResponse.make(InsightsOutput.json(insights, budgets: zones))
    }

    @Sendable func summary(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try context.user()
        var (from, to) = try q.window()
        if let month = q.string("month") {
            guard from == nil && to == nil else { throw Problem(.badRequest, "give month or from/to, not both") }
            do { (from, to) = try SpendingSummary.month(month) } catch { throw Problem(.badRequest, "month: \(error)") }
        }
        let (windowFrom, windowTo) = (from, to)
        let summary = try await store.read { reader in
            let period = try q.checkedNames(user: user, categories: [], in: reader)
            return try SpendingSummary.compute(userID: user, from: windowFrom, to: windowTo, period: period, reader: reader)
        }
        return JSONResponse.make(SummaryOutput.json(summary))
    }
}
