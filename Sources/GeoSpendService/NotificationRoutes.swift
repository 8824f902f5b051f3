import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/notifications`: the token user's pull feed (issue 39), the events their webhooks get,
/// oldest first, paged by `after` (the last item's `sequence`; the answer's `next`), at most
/// `limit` (1–500, default 100), `unread=true` for the unread ones; POST
/// `/notifications/read?through=SEQ` marks them read up to SEQ. `/api/v1/reminders?as-of=…`:
/// `reminders due --format json`.
struct NotificationRoutes {
    let store: any Backend

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("notifications", use: list)
        group.post("notifications/read", use: markRead)
        group.get("reminders", use: reminders)
    }

    func checkedUser(_ context: ServiceContext) async throws -> String {
        let user = Identity.normalized(try context.user())
        try await NameChecks.user(user, in: store, database: QueryRoutes.database)
        return user
    }

    /// `{"notifications":[{"id","type","created_at","user","data","sequence","read_at"},…],"next":"12"}`.
    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let q = QueryParameters(request)
        let limit = try q.int("limit", in: 1...500) ?? 100
        let after = try q.int64("after")
        let unread = try q.flag("unread")
        let items = try await store.notifications(userID: user, after: after, limit: limit + 1, unreadOnly: unread)
        let page = items.prefix(limit)
        let next = items.count > limit ? page.last.map { "\"\($0.sequence)\"" } ?? "null" : "null"
        let text = "{\"notifications\":[" + page.map(\.feedItem).joined(separator: ",") + "],\"next\":\(next)}\n"
        return JSONResponse.text(text, contentType: "application/json")
    }

    /// `{"marked": N}`: the unread events up to `through` now read.
    @Sendable func markRead(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        guard let through = try QueryParameters(request).int64("through") else {
            throw Problem(.badRequest, "through: give the sequence of the last notification read, e.g. ?through=12")
        }
        let marked = try await store.markNotificationsRead(userID: user, through: through)
        return JSONResponse.make(.object([("marked", .integer(Int64(marked)))]))
    }

    /// `reminders due --as-of T --format json`.
    @Sendable func reminders(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let instant: Timestamp
        if let text = QueryParameters(request).string("as-of") {
            guard let t = try? Timestamp(parsing: text), !t.isDateOnly else {
                throw Problem(.badRequest, "as-of: \"\(OutputEscaping.visible(text))\" is not an RFC 3339 instant with offset, e.g. 2025-03-05T09:00:00+01:00")
            }
            instant = t
        } else {
            instant = Timestamp(epochSeconds: Int64(Date().timeIntervalSince1970), utcOffsetMinutes: 0)
        }
        return JSONResponse.make(.array(try await store.dueReminders(userID: user, asOf: instant).map(ExpenseJSON.expense)))
    }
}
