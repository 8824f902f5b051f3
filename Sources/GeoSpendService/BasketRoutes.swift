import GeoSpend
import Hummingbird

/// GET `/api/v1/basket?item=Milch=2&item=Brot[&as-of=…&near=LAT,LON&radius=…&cost-per-km=…&
/// currency=…&min-availability=…&min-users=…&top=…]`: `geospend basket --user U --format json`,
/// from the token user's own price records. `all-users=true` compares every user's (`basket`
/// without `--user`): admin tokens only, `min-users` keeping a price back until that many users
/// recorded it (the service's floor, `serve --min-users`, or more).
struct BasketRoutes {
    let store: any Backend
    let settings: ServiceSettings

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("basket", use: basket)
    }

    @Sendable func basket(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let specs = q.all("item")
        guard !specs.isEmpty else { throw Problem(.badRequest, "give the list as item=NAME[=QTY] (repeatable)") }
        var wanted: [(name: String, want: BasketItem.Want)] = []
        for spec in specs {
            do { wanted.append(try BasketItem.parseSpec(spec)) } catch { throw Problem(.badRequest, "item: \(error)") }
        }
        let day = try BasketReach.day(q.string("as-of"))
        let reach = try await Self.reach(q, context: context, store: store, settings: settings)
        return JSONResponse.make(try await reach.compare(wanted, asOf: day, in: store).json(asOf: day))
    }

    /// The comparison's reach from `near`, `radius`, `cost-per-km`, `currency`, `min-availability`,
    /// `min-users` and `top` (`basket`'s and `lists show`'s options), on the token user's prices
    /// unless `all-users=true` (an admin token's).
    static func reach(_ q: QueryParameters, context: ServiceContext, store: any Backend, settings: ServiceSettings) async throws -> BasketReach {
        var r = BasketReach()
        r.userID = try await context.checkedUser(in: store)
        if try q.flag("all-users") {
            try context.requireAdmin("all-users compares every user's price records")
            r.userID = nil
        }
        (r.near, r.radius, r.costPerKm, r.currency) = (q.string("near"), q.string("radius"), q.string("cost-per-km"), q.string("currency"))
        if let share = try q.double("min-availability") { r.minAvailability = share }
        let minUsers = try q.int("min-users", in: 1...1_000_000)
        // Every user's prices: the service's floor holds. One's own: one user, nothing to hide.
        if r.userID == nil { r.minUsers = try settings.minUsers(minUsers) } else if let minUsers { r.minUsers = minUsers }
        if let n = try q.int("top", in: 1...1_000_000) { r.top = n }
        return r
    }
}
