import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/stores`: the token user's stores as `geospend stores list|show|add|favourite|
/// unfavourite|default` keep them, answering with their `--format json` output. GET lists the
/// default, favourite and added stores; POST adds one only this user sees (`{"name", "lat",
/// "lon", "kind", "region"}`, 201); GET `/{id}` shows one; PUT/DELETE `/{id}/favourite` mark and
/// unmark it; PUT `/api/v1/users/me/default-store` (`{"store": "mine-1"}`) sets the default,
/// DELETE clears it. Another user's added store is a 404, like a missing one.
struct StoreChoiceRoutes {
    let store: any Backend

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("stores", use: list)
        group.post("stores", use: create)
        group.get("stores/{id}", use: show)
        group.put("stores/{id}/favourite", use: favourite)
        group.delete("stores/{id}/favourite", use: unfavourite)
        group.put("users/me/default-store", use: setDefault)
        group.delete("users/me/default-store", use: clearDefault)
    }

    struct Body: Decodable {
        var name: String?
        var lat: Double?
        var lon: Double?
        var kind: String?
        var region: String?
    }

    struct DefaultBody: Decodable {
        var store: String?
    }

    static func json<T: Decodable>(_ type: T.Type, _ request: Request, example: String) async throws -> T {
        let bytes = try await request.body.collect(upTo: 1 << 16)
        do { return try JSONDecoder().decode(T.self, from: Data(buffer: bytes)) } catch {
            throw Problem(.badRequest, "the body must be a JSON object like \(example)")
        }
    }

    /// The usage error's words as a 404 (a store the user cannot see) or a 400.
    static func problem(_ e: UsageError) -> Problem {
        Problem(e.message.hasPrefix("no store ") ? .notFound : .badRequest, e.message)
    }

    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        return JSONResponse.make(.array(StoreChoiceListing.rows(try await store.storeChoices(userID: user)).map(StoreChoiceListing.json)))
    }

    @Sendable func create(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let body = try await Self.json(
            Body.self, request, example: #"{"name": "K-Market Kallio", "lat": 60.1841, "lon": 24.95, "kind": "supermarket", "region": "Uusimaa"}"#)
        guard let name = body.name, let lat = body.lat, let lon = body.lon, let kind = body.kind else {
            throw Problem(.badRequest, "name, lat, lon and kind are required")
        }
        let fields: AddedStoreFields
        do { fields = try AddedStoreFields.checked(name: name, lat: lat, lon: lon, kind: kind, region: body.region) } catch let e as UsageError {
            throw Problem(.badRequest, e.message)
        }
        guard let entry = try await store.addStore(userID: user, fields) else { throw Problem(.notFound, "no such user") }
        var response = JSONResponse.make(StoreChoiceListing.json(StoreChoiceListing.Row(entry: entry, favourite: false, isDefault: false)))
        response.status = .created
        return response
    }

    @Sendable func show(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try context.parameters.require("id")
        do { return JSONResponse.make(StoreChoiceListing.json(try await StoreChoiceListing.show(user: user, id: id, store: store))) } catch let e as UsageError {
            throw Self.problem(e)
        }
    }

    @Sendable func favourite(_ request: Request, context: ServiceContext) async throws -> Response { try await mark(context, true) }
    @Sendable func unfavourite(_ request: Request, context: ServiceContext) async throws -> Response { try await mark(context, false) }

    func mark(_ context: ServiceContext, _ on: Bool) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try context.parameters.require("id")
        do {
            guard let row = try await StoreChoiceListing.favourite(user: user, id: id, on, store: store) else { return Response(status: .noContent) }
            return JSONResponse.make(StoreChoiceListing.json(row))
        } catch let e as UsageError {
            throw Self.problem(e)
        }
    }

    @Sendable func setDefault(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let body = try await Self.json(DefaultBody.self, request, example: #"{"store": "mine-1"}"#)
        guard let id = body.store else { throw Problem(.badRequest, #"store is required: {"store": "mine-1"}; DELETE clears the default"#) }
        do {
            guard let row = try await StoreChoiceListing.setDefault(user: user, id: id, store: store) else { return Response(status: .noContent) }
            return JSONResponse.make(StoreChoiceListing.json(row))
        } catch let e as UsageError {
            throw Self.problem(e)
        }
    }

    @Sendable func clearDefault(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        _ = try await StoreChoiceListing.setDefault(user: user, id: nil, store: store)
        return Response(status: .noContent)
    }
}
