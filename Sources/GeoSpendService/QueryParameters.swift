import GeoSpend
import Hummingbird

/// A request's query parameters, named like the CLI's options (`radius` for `--radius`), parsed
/// by the same core functions; a bad value is a 400 naming the parameter.
struct QueryParameters {
    let values: Parameters

    init(_ request: Request) { values = request.uri.queryParameters }

    func string(_ name: String) -> String? { values.get(name) }

    func all(_ name: String) -> [String] { values.getAll(name) }

    func required(_ name: String) throws -> String {
        guard let v = string(name) else { throw Problem(.badRequest, "\(name) is required") }
        return v
    }

    func double(_ name: String) throws -> Double? {
        try string(name).map { text in
            guard let v = Double(text), v.isFinite else { throw Problem(.badRequest, "\(name): \"\(OutputEscaping.visible(text))\" is not a number") }
            return v
        }
    }

    /// `true` or `false`; absent is false.
    func flag(_ name: String) throws -> Bool {
        switch string(name) {
        case nil, "false": return false
        case "true": return true
        case let text?: throw Problem(.badRequest, "\(name): \"\(OutputEscaping.visible(text))\" is not true or false")
        }
    }

    func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        try string(name).map { text in
            guard let v = Int(text), range.contains(v) else {
                throw Problem(.badRequest, "\(name) must be a whole number between \(range.lowerBound) and \(range.upperBound)")
            }
            return v
        }
    }

    func int64(_ name: String) throws -> Int64? {
        try string(name).map { text in
            guard let v = Int64(text) else { throw Problem(.badRequest, "\(name): \"\(OutputEscaping.visible(text))\" is not a whole number") }
            return v
        }
    }

    /// `lat` and `lon`, both required.
    func center() throws -> Coordinate {
        let lat = try double("lat") ?? { throw Problem(.badRequest, "lat is required") }()
        let lon = try double("lon") ?? { throw Problem(.badRequest, "lon is required") }()
        do { return try Coordinate(latitude: lat, longitude: lon) } catch { throw Problem(.badRequest, "lat/lon: \(error)") }
    }

    func distance(_ name: String) throws -> Distance? {
        try string(name).map { text in
            do { return try Distance(parsing: text) } catch { throw Problem(.badRequest, "\(name): \(error)") }
        }
    }

    /// `from`/`to`, checked as the CLI checks `--from`/`--to`.
    func window() throws -> (from: Timestamp?, to: Timestamp?) {
        try TimeWindow.parsed(from: string("from"), to: string("to"), options: ("from", "to"))
    }

    /// Repeated `kind` parameters.
    func kinds() throws -> Set<ExpenseKind> {
        Set(try all("kind").map { text in
            guard let k = ExpenseKind(rawValue: text) else {
                throw Problem(.badRequest, "kind: \"\(OutputEscaping.visible(text))\" is not one of expense, income, transfer")
            }
            return k
        })
    }
}

extension QueryParameters {
    /// The token's user, the `category` names and the `period` id checked as the CLI checks them
    /// (an unknown one is a 4xx with the CLI's message and suggestion): the period, if asked for.
    func checkedNames(user: String, categories: [String], in store: any Backend) async throws -> Period? {
        try await store.read { try checkedNames(user: user, categories: categories, in: $0) }
    }

    /// `checkedNames(user:categories:in:)` inside a read scope the caller holds.
    func checkedNames(user: String, categories: [String], in reader: any ExpenseReader) throws -> Period? {
        try NameChecks.user(user, in: reader, database: QueryRoutes.database)
        try NameChecks.categories(categories, userID: user, in: reader)
        return try NameChecks.period(try int64("period"), user: user, in: reader, option: "period")
    }
}

/// Refuses a query with a NUL character in a name or value (`%00`) before any route reads it:
/// PostgreSQL's text cannot hold one (it failed with a 500) and SQLite's `LIKE` stops at it
/// (it matched everything), so both stores now give the same 400.
struct QueryCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        for (name, value) in request.uri.queryParameters where name.utf8.contains(0) || value.utf8.contains(0) {
            throw Problem(.badRequest, "\(OutputEscaping.visible(String(name))): a query parameter cannot hold a NUL character (%00); remove it")
        }
        return try await next(request, context)
    }
}
