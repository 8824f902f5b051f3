import GeoSpend
import Hummingbird

/// `/api/v1/expenses`: the token user's expenses a page at a time (keyset paging: the `next`
/// link carries the cursor of `expenses list --after`), and one by id. Another user's id is a
/// 404, exactly like an id that does not exist: the answer says nothing about other users.
struct ExpenseRoutes {
    let store: any ServiceStore

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("expenses", use: list)
        group.get("expenses/{id}", use: show)
    }

    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try context.user()
        let limit = try q.int("limit", in: 1...1000) ?? 50
        let cursor = try q.string("after").map { text in
            guard let c = ExpenseCursor(text: text) else {
                throw Problem(.badRequest, "after: \"\(OutputEscaping.visible(text))\" is not a cursor from a `next` link")
            }
            return c
        }
        let (from, to) = try q.window()
        let categories = q.all("category")
        let filter = ExpenseFilter(
            userID: user, from: from, to: to, kinds: try q.kinds(), categories: Set(categories),
            period: try await q.checkedNames(user: user, categories: categories, in: store)?.id)
        let page = try await store.expensePage(filter, after: cursor, limit: limit)
        var response = JSONResponse.make(ExpenseJSON.page(page))
        if let next = page.next {
            // RFC 8288: the next page, the same query with `after` set.
            response.headers[.link] = "<\(Self.link(request, after: next.text))>; rel=\"next\""
        }
        return response
    }

    @Sendable func show(_ request: Request, context: ServiceContext) async throws -> Response {
        let id = try context.parameters.require("id")
        guard let stored = try await store.expense(id: id, userID: try context.user()) else {
            throw Problem(.notFound, "you have no expense \"\(OutputEscaping.visible(id))\"; GET /api/v1/expenses lists them")
        }
        return JSONResponse.make(ExpenseJSON.expense(stored))
    }

    /// The request's path and query with `after` replaced.
    static func link(_ request: Request, after: String) -> String {
        var items = (request.uri.query ?? "").split(separator: "&").filter { !$0.hasPrefix("after=") }.map(String.init)
        items.append("after=\(after)")
        return request.uri.path + "?" + items.joined(separator: "&")
    }
}
