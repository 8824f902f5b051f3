import Foundation
import GeoSpend
import Hummingbird

/// The location history and geotagging (issue 36) for the token's user, as the CLI's
/// `import positions`, `positions` and `geotag` commands answer them:
/// - `POST /api/v1/positions?format=auto|google-timeline|…` — the body is a history file;
/// - `GET /api/v1/positions?from&to&limit&timezone`, `GET /api/v1/positions/summary?…`;
/// - `DELETE /api/v1/positions[?before=DATE&timezone=ZONE]`;
/// - `GET /api/v1/geotag?…` the dry run (a read token does); `POST /api/v1/geotag?…` the dry
///   run too unless `apply=true`; parameters `from`, `to`, `timezone`, `min-confidence`;
/// - `GET /api/v1/geotag/review`, `POST /api/v1/geotag/confirm?id=X&store=S` (or `lat`, `lon`),
///   `POST /api/v1/geotag/undo[?id=X]`.
/// `timezone` defaults to the user's setting (`/api/v1/users/me/settings`), else UTC — never the
/// server's zone, which says nothing about the user. An import ends with the user's retention
/// (`PositionRetention`). Only the token's user's history is ever read: no route reads another's
/// or all users'.
struct GeotagRoutes {
    let store: any Backend
    let uploads: Slots

    func add(to group: RouterGroup<ServiceContext>) {
        group.post("positions", use: importPositions)
        group.get("positions", use: list)
        group.get("positions/summary", use: summary)
        group.delete("positions", use: delete)
        group.get("geotag") { request, context in try await geotag(request, context: context, mayApply: false) }
        group.post("geotag") { request, context in try await geotag(request, context: context, mayApply: true) }
        group.get("geotag/review", use: review)
        group.post("geotag/confirm", use: confirm)
        group.post("geotag/undo", use: undo)
    }

    /// The service's default zone; named UTC, as answers print it.
    static let utc = TimeZone(identifier: "UTC") ?? .gmt

    /// `timezone` when given, else the user's setting, else UTC.
    func zone(_ q: QueryParameters, user: String) async throws -> TimeZone {
        guard let name = q.string("timezone") else { return try await store.timeZone(of: user, else: Self.utc) }
        guard let zone = UserSettings.zone(named: name) else {
            throw Problem(.badRequest, "timezone: \"\(OutputEscaping.visible(name))\" is not an IANA time zone name (e.g. Europe/Helsinki)")
        }
        return zone
    }

    static func window(_ q: QueryParameters, zone: TimeZone) throws -> (from: Int64?, to: Int64?) {
        do { return try PositionJSON.window(from: q.string("from"), to: q.string("to"), zone: zone, names: ("from", "to")) } catch {
            throw Problem(.badRequest, "\(error)")
        }
    }

    @Sendable func importPositions(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try context.user()
        let name = QueryParameters(request).string("format") ?? "auto"
        var format: LocationHistoryFormat?
        if name != "auto" {
            guard let f = LocationHistoryFormat(rawValue: name) else {
                throw Problem(.badRequest, "format: \"\(OutputEscaping.visible(name))\" is not auto or one of \(LocationHistoryFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            format = f
        }
        let upload = try await UploadedFile(request, context: context, slots: uploads, what: "positions", fileExtension: format == .csv ? "csv" : "json")
        defer { upload.remove() }
        let path = upload.url.path
        let history: LocationHistory
        do {
            // Parsing is CPU work of its own: off the async runtime's few threads, abandoned when the request goes.
            history = try await offloaded { [format] in try LocationHistoryReader.read(path: path, format: format, displayName: "body").history }
        } catch let error as ImportError {
            throw ImportRoutes.problem(error, file: path)
        }
        let count = try await store.addLocationHistory(history, userID: user)
        let pruned = try await PositionRetention.apply(userID: user, in: store, now: PositionRetention.now())
        return JSONResponse.make(PositionJSON.imported(count, retention: pruned))
    }

    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try await context.checkedUser(in: store)
        let (from, to) = try Self.window(q, zone: try await zone(q, user: user))
        let limit = try q.int("limit", in: 1...100_000) ?? 1000
        let history = try await store.locationHistory(userID: user, from: from, to: to)
        return JSONResponse.make(PositionJSON.list(history, shown: history.positions.prefix(limit)))
    }

    @Sendable func summary(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try await context.checkedUser(in: store)
        let zone = try await zone(q, user: user)
        let (from, to) = try Self.window(q, zone: zone)
        let history = try await store.locationHistory(userID: user, from: from, to: to)
        return JSONResponse.make(PositionJSON.summary(history, zone: zone))
    }

    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try await context.checkedUser(in: store)
        var before: Int64?
        if let text = q.string("before") {
            let zone = try await zone(q, user: user)
            do { before = PositionJSON.instant(try Timestamp(parsing: text), in: zone, nextDay: false) } catch {
                throw Problem(.badRequest, "before: \(error)")
            }
        }
        let deleted = try await store.deletePositions(userID: user, before: before)
        return JSONResponse.make(.object([("positions", .integer(Int64(deleted.positions))), ("visits", .integer(Int64(deleted.visits)))]))
    }

    func run(_ request: Request, context: ServiceContext, dryRun: Bool) async throws -> GeotagReport {
        let q = QueryParameters(request)
        let user = try await context.checkedUser(in: store)
        let confidence = try q.double("min-confidence") ?? 0
        guard (0...1).contains(confidence) else { throw Problem(.badRequest, "min-confidence: \(confidence) is not between 0 and 1") }
        let window: (from: Timestamp?, to: Timestamp?)
        do { window = try TimeWindow.parsed(from: q.string("from"), to: q.string("to"), options: ("from", "to")) } catch {
            throw Problem(.badRequest, "\(error)")
        }
        return try await GeotagRun(
            userID: user, from: window.from, to: window.to, timeZone: try await zone(q, user: user), minimumConfidence: confidence, dryRun: dryRun
        ).run(on: store)
    }

    func geotag(_ request: Request, context: ServiceContext, mayApply: Bool) async throws -> Response {
        let apply = try QueryParameters(request).flag("apply")
        guard mayApply || !apply else { throw Problem(.badRequest, "apply=true writes: send it as POST /api/v1/geotag?apply=true") }
        let report = try await run(request, context: context, dryRun: !apply)
        return JSONResponse.make(GeotagJSON.report(report, dryRun: !apply))
    }

    @Sendable func review(_ request: Request, context: ServiceContext) async throws -> Response {
        JSONResponse.make(GeotagJSON.report(try await run(request, context: context, dryRun: true).forReview, dryRun: true))
    }

    @Sendable func confirm(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try await context.checkedUser(in: store)
        let id = try q.required("id")
        let place: GeotagConfirmation.Place
        switch (q.string("store"), try q.double("lat"), try q.double("lon")) {
        case (let storeID?, nil, nil):
            place = .store(storeID)
        case (nil, let lat?, let lon?):
            do { place = .position(try Coordinate(latitude: lat, longitude: lon)) } catch { throw Problem(.badRequest, "\(error)") }
        default:
            throw Problem(.badRequest, "give store, or lat and lon")
        }
        switch try await GeotagConfirmation.confirm(id: id, userID: user, at: place, in: store) {
        case .placed(let stored):
            return JSONResponse.make(ExpenseJSON.expense(stored))
        case .noStore(let storeID):
            throw Problem(.notFound, "no store \"\(OutputEscaping.visible(storeID))\"")
        case .noExpense:
            throw Problem(.notFound, "no expense \"\(OutputEscaping.visible(id))\"")
        case .alreadyPlaced:
            throw Problem(.conflict, "expense \"\(OutputEscaping.visible(id))\" already has a position; POST /api/v1/geotag/undo?id=… takes back an inferred one")
        }
    }

    @Sendable func undo(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let restored = try await store.unplace(userID: user, expenseID: QueryParameters(request).string("id"))
        return JSONResponse.make(.object([("restored", .array(restored.map { .string($0) }))]))
    }
}
