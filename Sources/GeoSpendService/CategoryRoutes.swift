import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/categories`: the token user's categories as `geospend categories list|add|edit|
/// deactivate|delete` keep them. GET lists (`all=true`: deactivated ones too), POST adds, PATCH
/// `/{name}` renames, changes icon or colour, or (de)activates (`"active": false` is
/// `deactivate`), DELETE `/{name}` deletes (its expenses stay, with no category). `kind` (query)
/// picks expense, income or transfer when a name is of several kinds. Answers are the CLI's JSON; a name the user has
/// no category of is a 404.
struct CategoryRoutes {
    let store: any Backend

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("categories", use: list)
        group.post("categories", use: create)
        group.patch("categories/{name}", use: edit)
        group.delete("categories/{name}", use: delete)
    }

    /// `categories list --user U [--all] --format json`.
    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try context.user()
        let all = try QueryParameters(request).flag("all")
        try await NameChecks.user(user, in: store, database: QueryRoutes.database)
        let categories = try await store.categoryDetails(userID: Identity.normalized(user), includeInactive: all)
        return JSONResponse.make(.array(categories.map(CategoryJSON.json)))
    }

    /// The body of POST and PATCH: the options of `categories add|edit` (`active` for
    /// `--activate` and `deactivate`).
    struct Body: Decodable {
        var name: String?
        var kind: String?
        var icon: String?
        var color: String?
        var active: Bool?
    }

    static func body(_ request: Request) async throws -> Body {
        let bytes = try await request.body.collect(upTo: 1 << 16)
        do { return try JSONDecoder().decode(Body.self, from: Data(buffer: bytes)) } catch {
            throw Problem(.badRequest, "the body must be a JSON object: name, kind (expense, income or transfer), icon, color (#RRGGBB), active (true or false)")
        }
    }

    /// 201 with `categories add --format json`'s object.
    @Sendable func create(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try context.user()
        let body = try await Self.body(request)
        guard let name = body.name else { throw Problem(.badRequest, "name is required") }
        guard body.active == nil else { throw Problem(.badRequest, "a new category is active; PATCH deactivates it") }
        let added = try await store.addCategory(
            GeoSpend.Category(name: try CategoryFields.name(name), kind: try Self.kind(body.kind) ?? .expense), userID: try CategoryFields.user(user),
            icon: try CategoryFields.icon(body.icon), color: try CategoryFields.color(body.color))
        var response = JSONResponse.make(.object(CategoryJSON.members(added)))
        response.status = .created
        return response
    }

    /// `categories edit NAME` (and `deactivate NAME` with `"active": false`).
    @Sendable func edit(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try context.user()
        let (name, kind) = try Self.target(request, context: context)
        let body = try await Self.body(request)
        guard body.kind == nil else { throw Problem(.badRequest, "kind goes in the query (?kind=income), to pick the category; it cannot change") }
        let change = CategoryChange(
            name: try body.name.map(CategoryFields.name), icon: try body.icon.map { try CategoryFields.icon($0) ?? "" },
            color: try body.color.map { try CategoryFields.color($0) ?? "" }, isActive: body.active)
        try await NameChecks.user(user, in: store, database: QueryRoutes.database)
        let edited = try await Self.notFound { try await store.editCategory(name: name, kind: kind, userID: Identity.normalized(user), change: change) }
        return JSONResponse.make(.object(CategoryJSON.members(edited)))
    }

    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try context.user()
        let (name, kind) = try Self.target(request, context: context)
        try await NameChecks.user(user, in: store, database: QueryRoutes.database)
        let cleared = try await Self.notFound { try await store.deleteCategory(name: name, kind: kind, userID: Identity.normalized(user)) }
        return JSONResponse.make(.object([("deleted", .string(name)), ("expenses_without_category", .integer(Int64(cleared)))]))
    }

    /// The category a path names, and the query's `kind`.
    static func target(_ request: Request, context: ServiceContext) throws -> (String, GeoSpend.Category.Kind?) {
        let raw = try context.parameters.require("name")
        let name = Identity.normalized(raw.removingPercentEncoding ?? raw)  // the path is not decoded: Eating%20out
        return (name, try kind(QueryParameters(request).string("kind")))
    }

    static func kind(_ text: String?) throws -> GeoSpend.Category.Kind? {
        try text.map { text in
            guard let k = GeoSpend.Category.Kind(rawValue: text) else { throw Problem(.badRequest, "kind: \"\(OutputEscaping.visible(text))\" is not expense, income or transfer") }
            return k
        }
    }

    /// A category the user does not have is a 404 (with the store's message and suggestion).
    static func notFound<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let e as EditError {
            if case .unknownCategory = e { throw Problem(.notFound, e.description) }
            throw e
        }
    }
}
