import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/expenses`: the token user's expenses a page at a time (keyset paging: the `next`
/// link carries the cursor of `expenses list --after`), one by id, and one expense's life as
/// `geospend expenses add|edit|delete|search` (the same core, `ExpenseChanges`): POST adds,
/// PATCH edits the fields given, DELETE deletes leaving no trace, `/api/v1/search/expenses`
/// searches. Another user's id is a 404, exactly like an id that does not exist: the answer
/// says nothing about other users.
struct ExpenseRoutes {
    let store: any Backend
    let settings: ServiceSettings
    let rewrites: BatchedRewrite

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("expenses", use: list)
        group.get("expenses/{id}", use: show)
        group.post("expenses", use: add)
        group.patch("expenses/{id}", use: edit)
        group.delete("expenses/{id}", use: delete)
        group.get("search/expenses", use: search)
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
            response.headers[.link] = "<\(settings.publicURL)\(Self.link(request, after: next.text))>; rel=\"next\""
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

    /// 201 with the stored expense (`expenses add --format json`) and its address.
    @Sendable func add(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try context.user()
        let (fields, remindAt) = try await Self.fields(request, context: context)
        let (expense, remind) = try ExpenseChanges.new(fields, user: user, remindAt: remindAt)
        let (stored, _) = try await ExpenseChanges.add(expense, remindAt: remind, store: store)
        var response = JSONResponse.make(ExpenseJSON.expense(stored))
        response.status = .created
        response.headers[.location] = "/api/v1/expenses/\(stored.expense.id)"
        return response
    }

    @Sendable func edit(_ request: Request, context: ServiceContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let user = try context.user()
        let (fields, remindAt) = try await Self.fields(request, context: context)
        do {
            let stored = try await ExpenseChanges.edit(id: id, user: user, fields: fields, remindAt: remindAt, store: store)
            return JSONResponse.make(ExpenseJSON.expense(stored))
        } catch let e as UsageError where e == ExpenseChanges.noExpense(id, user) {
            throw Self.noExpense(id)
        }
    }

    /// As `expenses delete`, but the file's rewrite runs once for the deletions of a few seconds
    /// (`BatchedRewrite`; not at all with `no-vacuum=true`): the id and the notes on what may remain.
    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let skip = try QueryParameters(request).flag("no-vacuum")
        guard var notes = try await store.deleteExpense(id: id, userID: try context.user(), rewrite: skip ? .skipped : .batched) else {
            throw Self.noExpense(id)
        }
        if !skip {
            await rewrites.deletionCommitted()
            notes.insert("the file is rewritten (VACUUM) within \(rewrites.delay.components.seconds) s, once for the deletions made meanwhile", at: 0)
        }
        return JSONResponse.make(.object([("deleted", .string(id)), ("notes", .array(notes.map { .string($0) }))]))
    }

    /// `expenses search --user U TEXT --limit N --format json`.
    @Sendable func search(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try context.user()
        let text = try q.required("text")
        guard !text.isEmpty else { throw Problem(.badRequest, "text is empty; give a word to look for") }
        let limit = try q.int("limit", in: 1...1000) ?? 100
        let found = try await store.searchExpenses(userID: Identity.normalized(user), text: Identity.normalized(text), limit: limit)
        return JSONResponse.make(.array(found.map(ExpenseJSON.expense)))
    }

    static func noExpense(_ id: String) -> Problem {
        Problem(.notFound, "you have no expense \"\(OutputEscaping.visible(id))\"; GET /api/v1/expenses lists them")
    }

    /// The body's fields, named like `expenses add|edit`'s options (`amount`, `at`, `store`,
    /// `remind-at`, …), as import columns; a string or a number each, null or "" to unset.
    static func fields(_ request: Request, context: ServiceContext) async throws -> (fields: [String: String], remindAt: String?) {
        var fields = try await Self.object(
            request, names: bodyFields, example: #"{"amount": "4.50", "currency": "EUR", "at": "2025-03-01T10:00:00+01:00"}"#)
        let remindAt = fields.removeValue(forKey: "remind_at")
        return (fields, remindAt)
    }

    /// A body of fields (strings, numbers or null) keyed by `names`' keys, as the values it maps
    /// them to; an unknown key is refused naming the known ones. Shared with `RecurringRoutes`.
    static func object(_ request: Request, names: [String: String], example: String) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: 1 << 20)
        guard let object = try? JSONDecoder().decode([String: FieldValue].self, from: Data(buffer: body)) else {
            throw Problem(.badRequest, "the body must be a JSON object of strings or numbers, e.g. \(example)")
        }
        var fields: [String: String] = [:]
        for (key, value) in object {
            guard let field = names[key] else {
                throw Problem(.badRequest, "unknown field \"\(OutputEscaping.visible(key))\"; the fields are \(names.keys.sorted().joined(separator: ", ")) (the user is the token's)")
            }
            fields[field] = value.text
        }
        return fields
    }

    /// A field's value: text, a number (as its shortest decimal text) or null ("": unset).
    struct FieldValue: Decodable {
        let text: String
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            // A whole number as an integer's text: `"period": 3` is period 3, not "3.0".
            if c.decodeNil() {
                text = ""
            } else if let s = try? c.decode(String.self) {
                text = s
            } else if let i = try? c.decode(Int64.self) {
                text = String(i)
            } else {
                text = "\(try c.decode(Double.self))"
            }
        }
    }

    /// Body field → import column.
    static let bodyFields: [String: String] = [
        "amount": "amount", "currency": "currency", "at": "occurred_at", "kind": "kind", "title": "title", "category": "category",
        "merchant": "merchant", "lat": "lat", "lon": "lon", "store": "store_id", "notes": "notes", "remind-at": "remind_at",
        "period": "period",
    ]

    /// The request's path and query with `after` replaced.
    /// The path and query of the next page: the request's parameters as parsed, `after` replaced,
    /// each encoded again, so nothing raw from the request reaches the header (a `>` or `,` in
    /// it would end the link and start one the client did not ask for).
    static func link(_ request: Request, after: String) -> String {
        var items = request.uri.queryParameters.filter { $0.key != "after" }.map { (String($0.key), String($0.value)) }
        items.append(("after", after))
        return "/api/v1/expenses" + QueryText.build(items)
    }
}
