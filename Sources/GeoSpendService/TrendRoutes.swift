import GeoSpend
import Hummingbird

/// GET `/api/v1/trends[?from=…&to=…&by=category|store]`: `geospend trends --user U --format
/// json` for the token's user.
struct TrendRoutes {
    let store: any Backend

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("trends", use: trends)
    }

    @Sendable func trends(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try await context.checkedUser(in: store)
        let (from, to) = try q.window()
        let grouping: TrendsRequest.Grouping
        switch q.string("by") {
        case nil: grouping = .none
        case "category": grouping = .category
        case "store": grouping = .store
        case let text?: throw Problem(.badRequest, "by: \"\(OutputEscaping.visible(text))\" is not category or store")
        }
        let result = try await Trends.compute(TrendsRequest(userID: user, from: from, to: to, by: grouping), store: store)
        return JSONResponse.make(result.json(userID: user, by: grouping))
    }
}
