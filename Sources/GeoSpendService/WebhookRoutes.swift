import Foundation
import GeoSpend
import Hummingbird
import Logging

/// `/api/v1/webhooks`: the token user's webhooks (issue 39), as `geospend webhooks
/// add|list|delete|test|deliveries` keep them. POST adds (`{"url", "events": ["budget.threshold"]}`)
/// and answers 201 with the webhook and its `secret`, shown this once; GET lists (never
/// secrets); DELETE `/{id}` deletes it and its deliveries; POST `/{id}/test` sends a signed
/// `webhook.test` now (not stored) and answers with the receiver's status; GET
/// `/{id}/deliveries` lists its deliveries, newest first. Another user's webhook is a 404, like
/// a missing one. A URL at a loopback or private address is refused (400) unless the operator
/// started the service with `--allow-private-webhooks` (`WebhookAddressPolicy`): a user must
/// not aim the service at its own network.
struct WebhookRoutes {
    let store: any Backend
    let settings: WebhookSettings

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("webhooks", use: list)
        group.post("webhooks", use: create)
        group.delete("webhooks/{id}", use: delete)
        group.post("webhooks/{id}/test", use: test)
        group.get("webhooks/{id}/deliveries", use: deliveries)
    }

    /// `webhooks list --format json`: `[{"id","url","events","created_at"}]`, oldest first.
    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        return JSONResponse.make(.array(try await store.webhooks(userID: user).map(\.json)))
    }

    struct Body: Decodable {
        var url: String?
        var events: [String]?
    }

    /// 201 with `{"id","url","events","created_at","secret"}`: the only answer that holds the secret.
    @Sendable func create(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let bytes = try await request.body.collect(upTo: 1 << 16)
        let body: Body
        do { body = try JSONDecoder().decode(Body.self, from: Data(buffer: bytes)) } catch {
            throw Problem(.badRequest, "the body must be a JSON object: url (an http(s) URL), events (a list of event types; default: all), e.g. {\"url\": \"https://example.org/hook\", \"events\": [\"budget.threshold\"]}")
        }
        guard let url = body.url else { throw Problem(.badRequest, "url is required, e.g. {\"url\": \"https://example.org/hook\"}") }
        let hook: Webhook
        do { hook = try Webhook.new(userID: user, url: url, events: body.events ?? []) } catch {
            throw Problem(.badRequest, "\(error)".replacingOccurrences(of: "(--url)", with: "(url)").replacingOccurrences(of: "(--events)", with: "(events)"))
        }
        try await refuseIfPrivate(hook.url)
        guard let saved = try await store.addWebhook(hook), let secret = saved.secret else {
            throw Problem(.notFound, "no user \"\(OutputEscaping.visible(user))\"")
        }
        guard case .object(var members) = saved.json else { throw Problem(.internalServerError, "the webhook could not be shown") }
        members.append(("secret", .string(secret)))
        var response = JSONResponse.make(.object(members))
        response.status = .created
        return response
    }

    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try context.parameters.require("id")
        guard try await store.deleteWebhook(id: id, userID: user) else { throw Self.noWebhook(id) }
        return JSONResponse.make(.object([("deleted", .string(id))]))
    }

    /// `webhooks test`: `{"webhook_id","url","status":200,"delivered":true}`, or `"status": null`
    /// and `"error"` when the receiver could not be reached. The event is not stored.
    @Sendable func test(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try context.parameters.require("id")
        guard let hook = try await store.webhook(id: id, userID: user), let secret = hook.secret else { throw Self.noWebhook(id) }
        try await refuseIfPrivate(hook.url)
        let event = NotificationEvent(
            sequence: 0, id: NotificationEvent.newID(), userID: user, type: NotificationType.test,
            createdAt: Timestamp(epochSeconds: Int64(Date().timeIntervalSince1970), utcOffsetMinutes: 0).text,
            payload: JSONOutput.object([("webhook_id", .string(id))]).serialized(pretty: false), readAt: nil)
        // The address was checked above; the deliverer's own check would resolve the name again.
        var direct = settings
        direct.allowPrivate = true
        let deliverer = WebhookDeliverer(store: store, settings: direct, logger: Logger(label: "geospend.webhooks"))
        var members: [(String, JSONOutput)] = [("webhook_id", .string(id)), ("url", .string(hook.url)), ("event_id", .string(event.id))]
        do {
            let status = try await deliverer.send(url: hook.url, body: event.body, secret: secret, eventID: event.id)
            members += [("status", .integer(Int64(status))), ("delivered", .bool((200..<300).contains(status)))]
        } catch {
            members += [("status", .null), ("delivered", .bool(false)), ("error", .string(WebhookDeliverer.describe(error)))]
        }
        await deliverer.shutdown()
        return JSONResponse.make(.object(members))
    }

    /// `webhooks deliveries --id ID --format json`, at most `limit` (1–1000, default 100).
    @Sendable func deliveries(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try context.parameters.require("id")
        let limit = try QueryParameters(request).int("limit", in: 1...1000) ?? 100
        guard try await store.webhook(id: id, userID: user) != nil else { throw Self.noWebhook(id) }
        return JSONResponse.make(.array(try await store.deliveries(userID: user, webhookID: id, limit: limit).map(\.json)))
    }

    /// 400 when the service would refuse to deliver to `url` (`WebhookAddressPolicy`).
    func refuseIfPrivate(_ url: String) async throws {
        let allow = settings.allowPrivate
        // Resolving a name blocks: off the request's executor.
        let refusal = await Task.detached { WebhookAddressPolicy.refusal(url, allowPrivate: allow) }.value
        if let refusal { throw Problem(.badRequest, "url \(OutputEscaping.visible(url)): \(refusal)") }
    }

    static func noWebhook(_ id: String) -> Problem {
        Problem(.notFound, "no webhook \"\(OutputEscaping.visible(id))\" of this user; GET /api/v1/webhooks lists them")
    }
}
