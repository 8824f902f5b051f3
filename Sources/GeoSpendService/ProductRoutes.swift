import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/products`: `geospend products list|tags|tag|untag|favourite|unfavourite|sale|edit|
/// merge|delete` for the token's user (issue 38), answering with their `--format json` output.
/// GET `/products[?tag=T&favourites=true&on-sale=true&category=C]` lists; GET `/products/tags`;
/// POST `/products/{product}/tags` (`{"tag": "dairy", "color": "blue"}`); DELETE
/// `/products/{product}/tags/{tag}`; PATCH `/products/{product}` (`name`, `brand`, `category`,
/// `barcode`, `unit` as strings, `favourite` and `on_sale` as booleans); POST
/// `/products/{product}/merge` (`{"into": "P"}`); DELETE `/products/{product}`. `{product}` is an
/// id, a barcode or a name among the user's products; another user's is a 404.
struct ProductRoutes {
    let store: any Backend

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("products", use: list)
        group.get("products/tags", use: tags)
        group.post("products/{product}/tags", use: tag)
        group.delete("products/{product}/tags/{tag}", use: untag)
        group.patch("products/{product}", use: edit)
        group.post("products/{product}/merge", use: merge)
        group.delete("products/{product}", use: delete)
    }

    /// A lookup's "no product" is a 404; other refusals stay 400.
    func notFound<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let e as UsageError where e.message.hasPrefix("no product") {
            throw Problem(.notFound, e.message)
        }
    }

    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let q = QueryParameters(request)
        let filter = ProductCatalogue.Filter(
            tag: q.string("tag"), favourites: try q.flag("favourites"), onSale: try q.flag("on-sale"), category: q.string("category"))
        let listed = try await ProductCatalogue.list(userID: user, filter, store: store)
        return JSONResponse.make(.array(listed.map { ProductCatalogue.json($0.product, $0.marks) }))
    }

    @Sendable func tags(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        return JSONResponse.make(.array(try await store.productTags(userID: user).map(ProductCatalogue.json)))
    }

    /// The body as an object of strings, numbers, booleans or nulls; `allowed` keys only.
    static func body(_ request: Request, allowed: Set<String>, example: String) async throws -> [String: Value] {
        let bytes = try await request.body.collect(upTo: 1 << 16)
        guard let object = try? JSONDecoder().decode([String: Value].self, from: Data(buffer: bytes)) else {
            throw Problem(.badRequest, "the body must be a JSON object, e.g. \(example)")
        }
        if let unknown = object.keys.filter({ !allowed.contains($0) }).sorted().first {
            throw Problem(.badRequest, "unknown field \"\(OutputEscaping.visible(unknown))\"; the fields are \(allowed.sorted().joined(separator: ", "))")
        }
        return object
    }

    enum Value: Decodable {
        case text(String), flag(Bool), null
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { self = .null } else if let b = try? c.decode(Bool.self) { self = .flag(b) } else if let s = try? c.decode(String.self) {
                self = .text(s)
            } else { self = .text("\(try c.decode(Double.self))") }
        }
        /// The value as a field's text: null is "" (unset).
        func text(_ key: String) throws -> String {
            switch self {
            case .text(let s): return s
            case .null: return ""
            case .flag: throw Problem(.badRequest, "\(key): a string, not true or false")
            }
        }
        func flag(_ key: String) throws -> Bool {
            guard case .flag(let b) = self else { throw Problem(.badRequest, "\(key): true or false") }
            return b
        }
    }

    @Sendable func tag(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let product = try context.parameters.require("product")
        let body = try await Self.body(request, allowed: ["tag", "color"], example: #"{"tag": "dairy", "color": "blue"}"#)
        guard let name = try body["tag"]?.text("tag"), !name.isEmpty else { throw Problem(.badRequest, "tag is required: {\"tag\": \"dairy\"}") }
        let color = try body["color"]?.text("color")
        let tag = try await notFound { try await ProductCatalogue.tag(name, product: product, color: color, userID: user, store: store) }
        return JSONResponse.make(ProductCatalogue.json(tag))
    }

    @Sendable func untag(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let product = try context.parameters.require("product"), tag = try context.parameters.require("tag")
        do {
            try await notFound { try await ProductCatalogue.untag(tag, product: product, userID: user, store: store) }
        } catch let e as UsageError where e.message.contains("has no tag") {
            throw Problem(.notFound, e.message)
        }
        return JSONResponse.make(.object([("untagged", .string(tag))]))
    }

    @Sendable func edit(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let product = try context.parameters.require("product")
        let body = try await Self.body(
            request, allowed: ProductCatalogue.editKeys.union(["favourite", "on_sale"]), example: #"{"category": "Dairy", "favourite": true}"#)
        if body.isEmpty { throw Problem(.badRequest, "nothing to change: give a field such as name, category or favourite") }
        var given: [String: String] = [:]
        for key in ProductCatalogue.editKeys { if let v = body[key] { given[key] = try v.text(key) } }
        let favourite = try body["favourite"].map { try $0.flag("favourite") }, onSale = try body["on_sale"].map { try $0.flag("on_sale") }
        var p = try await notFound { try await ProductCatalogue.product(product, userID: user, store: store) }
        if !given.isEmpty { p = try await notFound { try await ProductCatalogue.edit(product: String(p.id), given, userID: user, store: store) } }
        if favourite != nil || onSale != nil {
            p = try await notFound { try await ProductCatalogue.mark(product: String(p.id), favourite: favourite, onSale: onSale, userID: user, store: store) }
        }
        let listed = try await ProductCatalogue.list(userID: user, store: store).first { $0.product.id == p.id }
        return JSONResponse.make(ProductCatalogue.json(listed?.product ?? p, listed?.marks ?? ProductMarks()))
    }

    @Sendable func merge(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let product = try context.parameters.require("product")
        let body = try await Self.body(request, allowed: ["into"], example: #"{"into": "Äpfel"}"#)
        guard let into = try body["into"]?.text("into"), !into.isEmpty else { throw Problem(.badRequest, "into is required: {\"into\": \"Äpfel\"}") }
        let (target, moved) = try await notFound { try await ProductCatalogue.merge(product, into: into, userID: user, store: store) }
        return JSONResponse.make(.object([("into", .integer(target.id)), ("records_moved", .integer(Int64(moved)))]))
    }

    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let product = try context.parameters.require("product")
        let (p, gone) = try await notFound { try await ProductCatalogue.delete(product, userID: user, store: store) }
        return JSONResponse.make(.object([("deleted", .integer(p.id)), ("records_deleted", .integer(Int64(gone)))]))
    }
}
