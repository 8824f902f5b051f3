import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendService
import GeoSpendSpatiaLite

/// `geospend tokens`: the bearer tokens of `geospend serve`, one user each.
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Make, list and revoke the API tokens of `geospend serve`.",
        discussion: """
            A token acts as its user on every request. Only its SHA-256 hash is stored:
            the token is printed once, as the last line of `tokens create`, and cannot
            be shown again (make a new one and revoke the old). `users delete` removes
            a user's tokens with the rest of their data.

            Example:
              TOKEN=$(geospend tokens create --user alice --expires 30d | tail -n 1)
              geospend tokens list --user alice
              geospend tokens revoke --user alice 3
            """,
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Make a token for a user; prints it once, as the last line.",
            usage: """
                geospend tokens create --user <user> [--scope <scope>]
                  [--expires <expires>] [--db <db>]
                """,
            discussion: """
                --scope read: queries only; write: also changes the user's data (DELETE
                /api/v1/users/me); admin: also cross-user reports.

                Example:
                  geospend tokens create --user alice --scope read --expires 30d
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user the token acts as.") var user: String
        @Option(help: "read, write or admin.") var scope: TokenScope = .read
        @Option(help: "Lifetime: 30d, 12h (default: no expiry).") var expires: String?

        func run() async throws {
            let expiry = try expires.map(Self.expiry)
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            let token = TokenAuth.newToken()
            let record = try await store.addToken(userID: user, scope: scope, lookup: token.lookup, sha256: token.sha256, expiresAt: expiry)
            printErr("token \(record.id) for user \(record.userID), scope \(record.scope.rawValue), expires \(record.expiresAt?.text ?? "never"); it is shown only now:")
            printOut(token.text + "\n")
        }

        /// Now plus `30d` or `12h`, as a UTC instant.
        static func expiry(_ text: String) throws -> Timestamp {
            guard let unit = text.last, let n = Int64(text.dropLast()), n > 0, n <= 3650 * 24, let hours = ["d": 24, "h": 1][String(unit)] else {
                throw ValidationError("--expires \(text): give a number of days or hours, e.g. 30d or 12h")
            }
            let ms = Int64(Date().timeIntervalSince1970 * 1000) + n * Int64(hours) * 3_600_000
            return try Timestamp(parsing: Timestamp.rfc3339(epochMilliseconds: ms / 1000 * 1000, utcOffsetMinutes: 0))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "The tokens (never the tokens themselves): id, user, scope, made, expiry.",
            usage: "geospend tokens list [--user <user>] [--format <format>] [--db <db>]",
            discussion: """
                Example:
                  geospend tokens list --user alice
                  geospend tokens list --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only this user's tokens (default: every user's).") var user: String?
        @Option(help: "table or json.") var format: Format = .table

        enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

        func run() async throws {
            let tokens = try await database.openBackend().tokens(userID: user)
            switch format {
            case .json:
                printOut(JSONOutput.array(tokens.map { t in
                    .object([
                        ("id", .integer(t.id)), ("user", .string(t.userID)), ("scope", .string(t.scope.rawValue)),
                        ("created_at", .string(t.createdAt)), ("expires_at", .text(t.expiresAt?.text)),
                    ])
                }).serialized() + "\n")
            case .table:
                printOut(TextTable(
                    headers: ["id", "user", "scope", "created", "expires"],
                    rows: tokens.map { [String($0.id), $0.userID, $0.scope.rawValue, $0.createdAt, $0.expiresAt?.text ?? "never"] },
                    rightAligned: [0]
                ).rendered())
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Delete one of a user's tokens; requests with it are refused from then on.",
            usage: "geospend tokens revoke --user <user> <id> [--db <db>]",
            discussion: """
                Example:
                  geospend tokens revoke --user alice 3
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The token's user.") var user: String
        @Argument(help: "The token's id (tokens list).") var id: Int64

        func run() async throws {
            guard try await database.openBackend(writable: true).revokeToken(userID: user, id: id) else {
                throw ValidationError("user \"\(OutputEscaping.visible(user))\" has no token \(id); `geospend tokens list --user U` lists them")
            }
            printOut("revoked token \(id)\n")
        }
    }
}

extension TokenScope: ExpressibleByArgument {}
