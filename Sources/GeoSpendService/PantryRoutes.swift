import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/pantry`: the token user's pantry as `geospend pantry list|add|use|discard|predict`
/// keep it, answering with their `--format json` output. GET lists open items, the soonest
/// expiry first (`all=true`: closed ones too); POST adds (`{"name", "quantity", "expires"}`,
/// 201); POST `/{id}/use` and `/{id}/discard` close one; GET `/predictions` (`as-of=YYYY-MM-DD`,
/// default today in the user's zone, else UTC) lists purchase predictions. Another user's item
/// id is a 404, like a missing one.
struct PantryRoutes {
    let store: any Backend

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("pantry", use: list)
        group.post("pantry", use: create)
        group.get("pantry/predictions", use: predictions)
        group.post("pantry/{id}/use", use: use)
        group.post("pantry/{id}/discard", use: discard)
    }

    struct Body: Decodable {
        var name: String?
        var quantity: String?
        var expires: String?
    }

    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let all: Bool
        switch QueryParameters(request).string("all") {
        case nil, "false": all = false
        case "true": all = true
        case let other?: throw Problem(.badRequest, "all=\(OutputEscaping.visible(other)): give true or false")
        }
        return JSONResponse.make(.array(PantryListing.ordered(try await store.pantryItems(userID: user), all: all).map(PantryListing.json)))
    }

    @Sendable func create(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let bytes = try await request.body.collect(upTo: 1 << 20)
        let body: Body
        do { body = try JSONDecoder().decode(Body.self, from: Data(buffer: bytes)) } catch {
            throw Problem(.badRequest, #"the body must be a JSON object like {"name": "Milch", "quantity": "2", "expires": "2025-06-10"}"#)
        }
        guard let name = body.name else { throw Problem(.badRequest, "name is required") }
        let fields = try PantryFields.checked(name: name, quantity: body.quantity, expires: body.expires)
        guard let item = try await store.addPantryItem(userID: user, fields) else { throw Problem(.notFound, "no such user") }
        var response = JSONResponse.make(PantryListing.json(item))
        response.status = .created
        return response
    }

    @Sendable func use(_ request: Request, context: ServiceContext) async throws -> Response { try await close(context, .used) }
    @Sendable func discard(_ request: Request, context: ServiceContext) async throws -> Response { try await close(context, .discarded) }

    func close(_ context: ServiceContext, _ status: PantryItem.Status) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let text = try context.parameters.require("id")
        guard let id = Int64(text) else {
            throw Problem(.notFound, "no pantry item \"\(OutputEscaping.visible(text))\": ids are whole numbers; GET /api/v1/pantry lists them")
        }
        do {
            return JSONResponse.make(PantryListing.json(try await PantryListing.close(user: user, id: id, as: status, store: store)))
        } catch let e as UsageError where e.message.contains("has no such pantry item") {
            throw Problem(.notFound, e.message)
        }
    }

    @Sendable func predictions(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let day: LocalDay
        if let asOf = QueryParameters(request).string("as-of") {
            do { day = try LocalDay(parsing: asOf) } catch { throw Problem(.badRequest, "as-of: \(error)") }
        } else {
            day = LocalDay.today(in: try await store.timeZone(of: user, else: TimeZone(identifier: "UTC")!))
        }
        return JSONResponse.make(.array(try await PantryListing.predictions(user: user, asOf: day, store: store).map(\.json)))
    }
}
