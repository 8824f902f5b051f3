import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/recurring`: the token user's recurring rules as `geospend recurring
/// list|add|edit|delete|run` keep them, answering with their `--format json` output. POST adds
/// (`{"every", "from", "amount", "currency", …}`), PATCH `/{id}` changes what is given (null or
/// "" unsets), DELETE `/{id}` deletes (its expenses stay), POST `/run` creates what is due
/// (`{"as_of": "YYYY-MM-DD"}`, default today in the user's zone, else UTC). Another user's rule
/// id is a 404, like a missing one.
struct RecurringRoutes {
    let store: any Backend

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("recurring", use: list)
        group.post("recurring", use: create)
        group.patch("recurring/{id}", use: edit)
        group.delete("recurring/{id}", use: delete)
        group.post("recurring/run", use: run)
    }

    /// Body field → `RecurringChanges` key (the CLI's option names, `store` for `--store`).
    static let bodyFields: [String: String] = [
        "every": "every", "from": "from", "until": "until", "amount": "amount", "currency": "currency", "kind": "kind", "title": "title",
        "category": "category", "merchant": "merchant", "store": "store_id", "notes": "notes",
    ]

    static func fields(_ request: Request) async throws -> [String: String] {
        try await ExpenseRoutes.object(
            request, names: bodyFields, example: #"{"every": "monthly", "from": "2025-01-31", "amount": "950.00", "currency": "EUR"}"#)
    }

    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        return JSONResponse.make(.array(try await store.recurringRules(userID: user).map(RecurringJSON.rule)))
    }

    /// 201 with `recurring add --format json`'s object.
    @Sendable func create(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        var response = JSONResponse.make(RecurringJSON.rule(try await RecurringChanges.add(try await Self.fields(request), user: user, store: store)))
        response.status = .created
        return response
    }

    @Sendable func edit(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context, user: user)
        let fields = try await Self.fields(request)
        if fields.isEmpty { throw Problem(.badRequest, "nothing to change: give a field such as amount or until") }
        guard try await store.recurringRule(userID: user, id: id) != nil else { throw Self.noRule(id, user: user) }
        return JSONResponse.make(RecurringJSON.rule(try await RecurringChanges.edit(id: id, fields, user: user, store: store)))
    }

    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context, user: user)
        guard try await store.deleteRecurring(userID: user, id: id) else { throw Self.noRule(id, user: user) }
        return JSONResponse.make(.object([("deleted", .integer(id))]))
    }

    /// `recurring run --format json`.
    @Sendable func run(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        struct Body: Decodable { var as_of: String? }
        let bytes = try await request.body.collect(upTo: 1 << 16)
        let body: Body
        if bytes.readableBytes == 0 { body = Body() } else {
            do { body = try JSONDecoder().decode(Body.self, from: Data(buffer: bytes)) } catch {
                throw Problem(.badRequest, "the body must be empty or a JSON object: {\"as_of\": \"2025-04-30\"}")
            }
        }
        let day: LocalDay
        if let text = body.as_of {
            do { day = try LocalDay(parsing: text) } catch { throw Problem(.badRequest, "as_of: \(error)") }
        } else {
            day = LocalDay.today(in: try await store.timeZone(of: user, else: TimeZone(identifier: "UTC")!))
        }
        return JSONResponse.make(RecurringJSON.run(try await RecurringRun.run(userID: user, asOf: day, store: store), asOf: day))
    }

    func checkedUser(_ context: ServiceContext) async throws -> String {
        let user = try context.user()
        try await NameChecks.user(user, in: store, database: QueryRoutes.database)
        return user
    }

    static func id(_ context: ServiceContext, user: String) throws -> Int64 {
        let text = try context.parameters.require("id")
        guard let id = Int64(text) else {
            throw Problem(.notFound, "no recurring rule \"\(OutputEscaping.visible(text))\": rule ids are whole numbers; GET /api/v1/recurring lists them")
        }
        return id
    }

    static func noRule(_ id: Int64, user: String) -> Problem { Problem(.notFound, RecurringChanges.noRule(id, user: user).message) }
}
