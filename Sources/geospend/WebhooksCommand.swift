import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendService

/// `geospend webhooks`: where a user's events are POSTed (issue 39, docs/NOTIFICATIONS.md).
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Webhooks: a user's events POSTed, signed, to a URL.",
        discussion: """
            Each event (a budget crossing a threshold, a reminder due) is POSTed as
            JSON to the user's webhooks by `geospend serve` (or `geospend
            notifications run`), signed with the webhook's secret in the header
            GeoSpend-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "t.body">.
            Failed deliveries are retried with exponential backoff for 24 hours,
            then marked failed. docs/NOTIFICATIONS.md has a receiver that verifies.

            Example:
              geospend webhooks add --user alice --url https://example.org/hook \\
                  --format json
              geospend webhooks list --user alice
              geospend webhooks deliveries --user alice
            """,
        subcommands: [Add.self, List.self, Delete.self, Test.self, Deliveries.self])

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a webhook; prints its id and its secret, shown this once.",
            usage: """
                geospend webhooks add --user <user> --url <url> [--events <types>]
                  [--format <format>] [--db <db>]
                """,
            discussion: """
                --url is http:// or https:// with a host. --events is a comma-separated
                list of budget.threshold, zone_budget.threshold, expense.reminder_due,
                import.finished, geotag.review_waiting, webhook.test (default: all).
                The secret signs every
                delivery: keep it in the receiver. `--format json` prints
                {"id", "secret"}.

                Example:
                  geospend webhooks add --user alice --url https://example.org/hook \\
                      --events budget.threshold,zone_budget.threshold --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "Where to POST: an http(s) URL.") var url: String
        @Option(help: ArgumentHelp("Event types, comma-separated (default: all).", valueName: "types")) var events: String?
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            let userID = Identity.normalized(user)
            try await NameChecks.user(userID, in: store, database: database.path)
            let types = (events ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let hook = try Webhook.new(userID: userID, url: url, events: types)
            guard let saved = try await store.addWebhook(hook) else { throw UsageError("no user \"\(OutputEscaping.visible(userID))\"") }
            switch format {
            case .json:
                printOut(JSONOutput.object([("id", .string(saved.id)), ("secret", .string(saved.secret ?? ""))]).serialized() + "\n")
            case .table:
                printOut("added webhook \(saved.id) for \(OutputEscaping.visible(saved.url))\nsecret (shown this once): \(saved.secret ?? "")\n")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "A user's webhooks (never their secrets).",
            usage: "geospend webhooks list --user <user> [--format <format>] [--db <db>]",
            discussion: """
                Example:
                  geospend webhooks list --user alice --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            let hooks = try await store.webhooks(userID: Identity.normalized(user))
            switch format {
            case .json: printOut(JSONOutput.array(hooks.map(\.json)).serialized() + "\n")
            case .table:
                printOut(TextTable(
                    headers: ["id", "url", "events", "created"],
                    rows: hooks.map { [$0.id, $0.url, $0.events.isEmpty ? "all" : $0.events.joined(separator: ","), $0.createdAt] }
                ).rendered())
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a webhook and its deliveries.",
            usage: "geospend webhooks delete --user <user> --id <id> [--db <db>]",
            discussion: """
                Example:
                  geospend webhooks delete --user alice --id wh_0123456789abcdef
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The webhook's id (webhooks list).") var id: String

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            guard try await store.deleteWebhook(id: id, userID: Identity.normalized(user)) else {
                throw UsageError("no webhook \"\(OutputEscaping.visible(id))\" of user \"\(OutputEscaping.visible(user))\"; `geospend webhooks list --user \(user)` lists them")
            }
            printOut("deleted webhook \(id)\n")
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "POST a signed webhook.test event to a webhook now; print the status.",
            usage: """
                geospend webhooks test --user <user> --id <id>
                  [--allow-private-webhooks] [--db <db>]
                """,
            discussion: """
                The event is sent once, not stored. Exit 1 when the receiver does not
                answer 2xx. Loopback and private addresses are refused unless
                --allow-private-webhooks.

                Example:
                  geospend webhooks test --user alice --id wh_0123456789abcdef
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The webhook's id (webhooks list).") var id: String
        @Flag(help: "Allow loopback and private addresses.") var allowPrivateWebhooks = false

        func run() async throws {
            let store = try await database.openBackend()
            let userID = Identity.normalized(user)
            try await NameChecks.user(userID, in: store, database: database.path)
            guard let hook = try await store.webhook(id: id, userID: userID), let secret = hook.secret else {
                throw UsageError("no webhook \"\(OutputEscaping.visible(id))\" of user \"\(OutputEscaping.visible(user))\"; `geospend webhooks list --user \(user)` lists them")
            }
            if let refusal = WebhookAddressPolicy.refusal(hook.url, allowPrivate: allowPrivateWebhooks) {
                throw UsageError("webhook \(id) is not sent to: \(refusal) (here: --allow-private-webhooks)")
            }
            let event = NotificationEvent(
                sequence: 0, id: NotificationEvent.newID(), userID: userID, type: NotificationType.test,
                createdAt: Timestamp(epochSeconds: Int64(Date().timeIntervalSince1970), utcOffsetMinutes: 0).text,
                payload: JSONOutput.object([("webhook_id", .string(id))]).serialized(pretty: false), readAt: nil)
            let deliverer = WebhookDeliverer(store: store, settings: WebhookSettings(allowPrivate: true), logger: .init(label: "geospend"))
            do {
                let status = try await deliverer.send(url: hook.url, body: event.body, secret: secret, eventID: event.id)
                await deliverer.shutdown()
                printOut("\(hook.url) answered \(status)\n")
                guard (200..<300).contains(status) else { throw ExitCode(1) }
            } catch let exit as ExitCode {
                throw exit
            } catch {
                await deliverer.shutdown()
                printErr("geospend: \(OutputEscaping.visible(hook.url)) could not be reached: \(error)")
                throw ExitCode(1)
            }
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "deliveries",
            abstract: "A user's webhook deliveries, newest first, with their attempts.",
            usage: """
                geospend webhooks deliveries --user <user> [--id <id>] [--limit <n>]
                  [--format <format>] [--db <db>]
                """,
            discussion: """
                Status pending (retried later), delivered or failed (the 24-hour retry
                window is over, or the URL was refused).

                Example:
                  geospend webhooks deliveries --user alice --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "Only this webhook's.") var id: String?
        @Option(help: "At most this many (default 100).") var limit = 100
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            let list = try await store.deliveries(userID: Identity.normalized(user), webhookID: id, limit: max(1, min(limit, 10_000)))
            switch format {
            case .json: printOut(JSONOutput.array(list.map(\.json)).serialized() + "\n")
            case .table:
                printOut(TextTable(
                    headers: ["id", "webhook", "event", "type", "status", "attempts", "last attempt"],
                    rows: list.map { [String($0.id), $0.webhookID, $0.eventID, $0.eventType, $0.status.rawValue, String($0.attempts), $0.attemptLog.last ?? ""] },
                    rightAligned: [0, 5]
                ).rendered())
            }
        }
    }
}
