import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/prices` and `/api/v1/products`: `geospend prices import|history` and `products
/// search` over HTTP. POST `/prices/import?format=csv|jsonl[&skip-invalid=true]` takes a file as
/// `prices import` reads it, for the token's user, all or nothing (bad rows: 400 with each row's
/// `line`, `column` and `reason`); GET `/prices/history?product=P[&store=ID]` is `prices history
/// --user U --format json` (`all-users=true`: everyone's, days only, admin tokens only); GET
/// `/prices/inflation?product=P|category=C[&days&as-of&store&near&radius&currency]` is `prices
/// inflation --user U --format json` (`all-users=true`: everyone's records, admin only); GET
/// `/products/search?text=T` is `products search T --format json` on the shared catalogue.
struct PriceRoutes {
    let store: any Backend
    let uploads: Slots

    func add(to group: RouterGroup<ServiceContext>) {
        group.post("prices/import", use: importPrices)
        group.get("prices/history", use: history)
        group.get("prices/inflation", use: inflation)
        group.get("products/search", use: search)
        group.get("prices", use: list)
        group.get("prices/top", use: top)
        group.patch("prices/{id}", use: edit)
        group.delete("prices/{id}", use: delete)
    }

    /// `prices list --user U [--product P] --format json`.
    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let records = try await PriceRecordJSON.list(userID: user, product: QueryParameters(request).string("product"), in: store)
        return JSONResponse.make(.array(records.map(PriceRecordJSON.record)))
    }

    /// `prices top --user U [--from D] [--to D] [--limit N] --format json`.
    @Sendable func top(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let q = QueryParameters(request)
        let limit = try q.int("limit", in: 1...1000) ?? 10
        let rows = try await PriceSpending.top(
            userID: user, from: try PriceSpending.day(q.string("from"), option: "from"), to: try PriceSpending.day(q.string("to"), option: "to"),
            limit: limit, store: store)
        return JSONResponse.make(PriceSpending.json(rows))
    }

    /// `prices edit ID … --format json`, the record alone.
    @Sendable func edit(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try Self.recordID(context)
        let fields = try await ExpenseRoutes.object(
            request, names: Dictionary(uniqueKeysWithValues: PriceCorrection.keys.map { ($0, $0) }), example: #"{"price": "1.29"}"#)
        do {
            return JSONResponse.make(PriceRecordJSON.record(try await PriceCorrection.edit(id: id, fields, user: user, store: store)))
        } catch let e as UsageError where e == PriceCorrection.noRecord(id, user: user) {
            throw Problem(.notFound, e.message)
        }
    }

    /// `prices delete ID`: `{"deleted": ID}`.
    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try Self.recordID(context)
        do { try await PriceCorrection.delete(id: id, user: user, store: store) } catch let e as UsageError where e == PriceCorrection.noRecord(id, user: user) {
            throw Problem(.notFound, e.message)
        }
        return JSONResponse.make(.object([("deleted", .integer(id))]))
    }

    static func recordID(_ context: ServiceContext) throws -> Int64 {
        let text = try context.parameters.require("id")
        guard let id = Int64(text) else {
            throw Problem(.notFound, "no price record \"\(OutputEscaping.visible(text))\": record ids are whole numbers; GET /api/v1/prices lists them")
        }
        return id
    }

    @Sendable func importPrices(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let skipInvalid = try QueryParameters(request).flag("skip-invalid")
        let format = try UploadedFile.tableFormat(request)
        let upload = try await UploadedFile(request, context: context, slots: uploads, what: "prices", fileExtension: format.rawValue)
        defer { upload.remove() }
        let file = upload.url
        let report: PriceImport.Report
        do {
            report = try await PriceImport.importPrices(
                from: file.path, format: format, userID: user, into: store, options: ImportOptions(skipInvalid: skipInvalid))
        } catch let error as ImportError {
            throw ImportRoutes.problem(error, file: file.lastPathComponent)
        }
        return JSONResponse.make(.object([
            ("inserted", .integer(Int64(report.rows.inserted))), ("new_products", .integer(Int64(report.newProducts))),
            ("unchanged", .integer(Int64(report.rows.unchanged))), ("rejected", .integer(Int64(report.rows.rejected))),
            ("open_prices", .bool(report.openPrices)),
            ("errors", .array(report.rows.errors.map { ImportRoutes.json($0, file: file.lastPathComponent) })),
        ]))
    }

    /// `prices history --product P [--store ID] (--user U | --all-users) --format json`.
    @Sendable func history(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try await context.checkedUser(in: store)
        let allUsers = try q.flag("all-users")
        if allUsers { try context.requireAdmin("all-users price histories show every user's records") }
        let report = try await PriceHistoryReport.make(
            product: try q.required("product"), storeID: q.string("store"), userID: allUsers ? nil : user, in: store)
        return JSONResponse.make(report.json)
    }

    /// `prices inflation … --user U --format json`.
    @Sendable func inflation(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        var query = InflationQuery()
        query.userID = try await context.checkedUser(in: store)
        if try q.flag("all-users") {
            try context.requireAdmin("all-users inflation counts every user's price records")
            query.userID = nil
        }
        (query.product, query.category, query.asOf, query.store) = (q.string("product"), q.string("category"), q.string("as-of"), q.string("store"))
        (query.near, query.radius, query.currency) = (q.string("near"), q.string("radius"), q.string("currency"))
        if let days = try q.int("days", in: 1...100_000) { query.days = days }
        let (result, names) = try await query.compute(in: store)
        return JSONResponse.make(InflationQuery.json(result, names: names))
    }

    /// `products search TEXT --user U --format json`: the products the token user has prices
    /// of (names are what people bought); `all-users=true` (admin) searches the whole catalogue.
    @Sendable func search(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let text = try q.required("text")
        var user: String? = try context.user()
        if try q.flag("all-users") {
            try context.requireAdmin("searching every user's products")
            user = nil
        }
        return JSONResponse.make(ProductLookup.json(try await ProductLookup.search(text, userID: user, in: store)))
    }
}

extension ServiceContext {
    /// Cross-user answers (`why`): admin tokens only; 403 names the scope to ask for.
    func requireAdmin(_ why: String) throws {
        guard let token, token.scope.allows(.admin) else {
            throw Problem(.forbidden, "\(why): that needs an admin token (`geospend tokens create --scope admin`)")
        }
    }

    /// The token's user, checked to exist as the CLI checks `--user`.
    func checkedUser(in store: any Backend) async throws -> String {
        let user = Identity.normalized(try user())
        try await NameChecks.user(user, in: store, database: QueryRoutes.database)
        return user
    }
}
