import GeoSpend
import Hummingbird

/// `/api/v1/report/store/{id}` and `/api/v1/report/stores`: the cross-user store reports of
/// `geospend report store|stores --format json`, byte for byte, for `admin` tokens only (they
/// add up every user's expenses). The suppression rules are the CLI's: nothing from fewer than
/// `min-users` distinct users is published: the service's floor (`serve --min-users`, default 3) or
/// more, never fewer.
struct ReportRoutes {
    let store: any Backend
    let settings: ServiceSettings

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("report/store/{id}", use: oneStore)
        group.get("report/stores", use: manyStores)
    }

    @Sendable func oneStore(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        try Self.requireAdmin(context)
        let (from, to) = try q.window()
        let id = try context.parameters.require("id")
        let report: StoreReport
        do {
            report = try await StoreReport.compute(
                StoreReportRequest(storeID: id, from: from, to: to, minUsers: try settings.minUsers(q.int("min-users", in: 1...Int.max))), store: store)
        } catch let e as StoreReportError {
            throw Problem(.notFound, e.description)
        }
        return JSONResponse.make(StoreReportOutput.json(report))
    }

    @Sendable func manyStores(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        try Self.requireAdmin(context)
        let (from, to) = try q.window()
        let radius = try q.distance("radius")
        let center = try q.string("near").map { text in
            let parts = text.split(separator: ",").map { Double($0) }
            guard parts.count == 2, let lat = parts[0], let lon = parts[1] else {
                throw Problem(.badRequest, "near: write LAT,LON, e.g. 60.1710,24.9414")
            }
            do { return try Coordinate(latitude: lat, longitude: lon) } catch { throw Problem(.badRequest, "near: \(error)") }
        }
        guard (center == nil) == (radius == nil) else { throw Problem(.badRequest, "near and radius go together") }
        let kind = q.string("kind")
        try await NameChecks.storeKind(kind, in: store)
        let report = try await StoreListReport.compute(
            near: center, radius: radius, kind: kind, from: from, to: to,
            minUsers: try settings.minUsers(q.int("min-users", in: 1...Int.max)), limit: try q.int("limit", in: 1...Int.max), store: store)
        return JSONResponse.make(StoreReportOutput.json(report))
    }

    /// Cross-user figures: `admin` tokens only (403 names the scope to ask for).
    static func requireAdmin(_ context: ServiceContext) throws {
        guard let token = context.token, token.scope.allows(.admin) else {
            throw Problem(.forbidden, "store reports add up every user's expenses: they need an admin token (`geospend tokens create --scope admin`)")
        }
    }
}
