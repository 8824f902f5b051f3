import GeoSpend
import Hummingbird

/// `/api/v1/snap`: `geospend snap --user U --format json` for the token's user. GET is the dry
/// run (`--dry-run`, a read token does); POST assigns (a write token). Parameters are the CLI's
/// options, in the query: tolerance (default 50m), ambiguity (3m), kind. The answer is the
/// CLI's JSON byte for byte.
struct SnapRoutes {
    let store: any Backend

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("snap") { request, context in try await snap(request, context: context, dryRun: true) }
        group.post("snap") { request, context in try await snap(request, context: context, dryRun: false) }
    }

    func snap(_ request: Request, context: ServiceContext, dryRun: Bool) async throws -> Response {
        let q = QueryParameters(request)
        let user = try context.user()
        let tolerance = try q.distance("tolerance") ?? .meters(50)
        let ambiguity = try q.distance("ambiguity") ?? .meters(3)
        let kind = q.string("kind")
        try await NameChecks.user(user, in: store, database: QueryRoutes.database)
        try await NameChecks.storeKind(kind, in: store)
        let plan = try await Snapping.plan(
            SnapRequest(userID: user, tolerance: tolerance, ambiguityMargin: ambiguity, storeKind: kind), store: store)
        let written = dryRun ? 0 : try await Snapping.apply(plan, to: store)
        return JSONResponse.make(SnapOutput.json(plan, written: written, dryRun: dryRun))
    }
}
