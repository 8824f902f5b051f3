import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/periods`: the token user's periods as `geospend periods list|add|edit|delete|assign|
/// unassign` keep them, answering with their `--format json` output. POST adds
/// (`{"name", "from", "to"}`), PATCH `/{id}` changes what is given (`"ongoing": true` for no last
/// day), DELETE `/{id}` deletes (its expenses stay), POST `/{id}/assign` and `/unassign` take
/// `{"expenses": [ids]}`, all or nothing. Another user's period id is a 404, like a missing one.
struct PeriodRoutes {
    let store: any Backend

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("periods", use: list)
        group.post("periods", use: create)
        group.patch("periods/{id}", use: edit)
        group.delete("periods/{id}", use: delete)
        group.post("periods/{id}/assign", use: assign)
        group.post("periods/unassign", use: unassign)
    }

    /// The bodies: `periods add|edit`'s options, and the expense ids of assign/unassign.
    struct Body: Decodable {
        var name: String?
        var from: String?
        var to: String?
        var ongoing: Bool?
        var expenses: [String]?
    }

    static func body(_ request: Request) async throws -> Body {
        let bytes = try await request.body.collect(upTo: 1 << 20)
        do { return try JSONDecoder().decode(Body.self, from: Data(buffer: bytes)) } catch {
            throw Problem(.badRequest, "the body must be a JSON object: name, from and to (YYYY-MM-DD), ongoing (true), or expenses (a list of ids)")
        }
    }

    /// `periods list --user U --format json`.
    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        return JSONResponse.make(PeriodJSON.list(try await store.periods(userID: user), user: user))
    }

    /// 201 with `periods add --format json`'s object.
    @Sendable func create(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let body = try await Self.body(request)
        guard let name = body.name, let from = body.from else { throw Problem(.badRequest, "name and from are required (to: none while ongoing)") }
        guard body.ongoing == nil else { throw Problem(.badRequest, "a period without to is ongoing; ongoing is for PATCH") }
        let fields = try PeriodFields(name: name, start: try Self.day(from, "from"), end: try body.to.map { try Self.day($0, "to") })
        var response = JSONResponse.make(PeriodJSON.json(try await store.addPeriod(userID: user, fields)))
        response.status = .created
        return response
    }

    /// `periods edit ID`: what is given changes.
    @Sendable func edit(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context)
        let body = try await Self.body(request)
        if body.ongoing == true && body.to != nil { throw Problem(.badRequest, "give to or ongoing, not both") }
        if body.name == nil && body.from == nil && body.to == nil && body.ongoing != true {
            throw Problem(.badRequest, "nothing to change: give name, from, to or ongoing")
        }
        guard let old = try await store.period(userID: user, id: id) else { throw Self.noPeriod(id, user: user) }
        let start = try body.from.map { try Self.day($0, "from") } ?? Timestamp(parsing: old.start)
        let end = body.ongoing == true ? nil : try body.to.map { try Self.day($0, "to") } ?? old.end.map { try Timestamp(parsing: $0) }
        let fields = try PeriodFields(name: body.name ?? old.name, start: start, end: end)
        guard let new = try await store.updatePeriod(userID: user, id: id, fields) else { throw Self.noPeriod(id, user: user) }
        return JSONResponse.make(PeriodJSON.json(new))
    }

    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context)
        guard let unlinked = try await store.deletePeriod(userID: user, id: id) else { throw Self.noPeriod(id, user: user) }
        return JSONResponse.make(.object([("deleted", .integer(id)), ("expenses_unlinked", .integer(Int64(unlinked)))]))
    }

    /// `periods assign --period ID IDS…`: how many changed, moved from another period, or were in it already.
    @Sendable func assign(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context)
        let ids = try await Self.expenseIDs(request)
        let result = try await store.assign(userID: user, period: id, expenseIDs: ids)
        if result == .noSuchPeriod { throw Self.noPeriod(id, user: user) }
        let (changed, moved) = try result.outcome(period: id, user: user)
        return JSONResponse.make(.object([
            ("period", .integer(id)), ("assigned", .integer(Int64(changed))), ("moved", .integer(Int64(moved))),
            ("unchanged", .integer(Int64(Set(ids.map(Identity.normalized)).count - changed))),
        ]))
    }

    /// `periods unassign IDS…`.
    @Sendable func unassign(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let ids = try await Self.expenseIDs(request)
        let (changed, _) = try await store.assign(userID: user, period: nil, expenseIDs: ids).outcome(period: nil, user: user)
        return JSONResponse.make(.object([("unassigned", .integer(Int64(changed)))]))
    }

    func checkedUser(_ context: ServiceContext) async throws -> String {
        let user = try context.user()
        try await NameChecks.user(user, in: store, database: QueryRoutes.database)
        return user
    }

    static func expenseIDs(_ request: Request) async throws -> [String] {
        guard let ids = try await body(request).expenses, !ids.isEmpty else {
            throw Problem(.badRequest, "expenses is required: a list of the user's expense ids, e.g. {\"expenses\": [\"e17\", \"e18\"]}")
        }
        return ids
    }

    static func id(_ context: ServiceContext) throws -> Int64 {
        let text = try context.parameters.require("id")
        guard let id = Int64(text) else { throw Problem(.notFound, "no period \"\(OutputEscaping.visible(text))\": period ids are whole numbers; GET /api/v1/periods lists them") }
        return id
    }

    static func day(_ text: String, _ name: String) throws -> Timestamp {
        do { return try Timestamp(parsing: text) } catch { throw Problem(.badRequest, "\(name): \(error)") }
    }

    static func noPeriod(_ id: Int64, user: String) -> Problem { Problem(.notFound, NameChecks.noPeriod(id, user: user).message) }
}
