import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

/// `geospend expenses`: one expense's life — add, show, edit, delete, list, search.
struct ExpensesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expenses",
        abstract: "Add, show, edit, delete, list and search one user's expenses.",
        discussion: """
            Values are checked as `geospend import expenses` checks them. Another
            user's expense is "no expense ID for user U": never shown, never changed.

            Example:
              geospend expenses add --user alice --amount 4.50 --currency EUR \\
                  --at 2025-03-01T10:00:00+01:00 --title Coffee --category Food
              geospend expenses list --user alice --limit 20
              geospend expenses search --user alice coffee
            """,
        subcommands: [Add.self, Show.self, Edit.self, Delete.self, List.self, Search.self])

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    /// The fields of an expense as options; import's names in parentheses.
    struct Fields: ParsableArguments {
        @Option(help: "Amount, a positive decimal: 4.50 (required for add).") var amount: String?
        @Option(help: "ISO 4217 code: EUR (required for add).") var currency: String?
        @Option(help: "When: RFC 3339 with offset, or a bare date (required for add).") var at: String?
        @Option(help: "expense (default), income or transfer.") var kind: String?
        @Option(help: "A short title.") var title: String?
        @Option(help: "An active category of the user (`geospend categories`).") var category: String?
        @Option(help: "Who was paid.") var merchant: String?
        @Option(parsing: .unconditional, help: "Latitude, degrees; south is negative (with --lon).") var lat: String?
        @Option(parsing: .unconditional, help: "Longitude, degrees; west is negative (with --lat).") var lon: String?
        @Option(help: "The id of a stored store.") var store: String?
        @Option(help: "Free text.") var notes: String?
        @Option(help: "A reminder: RFC 3339 instant with offset.") var remindAt: String?
        @Option(help: "A period of the user, its id or name (edit: \"\" for none).") var period: String?

        /// What was given, by import field name ("" kept: it unsets).
        var given: [String: String] {
            var f: [String: String] = [:]
            f["amount"] = amount; f["currency"] = currency; f["occurred_at"] = at; f["kind"] = kind
            f["title"] = title; f["category"] = category; f["merchant"] = merchant; f["lat"] = lat; f["lon"] = lon
            f["store_id"] = store; f["notes"] = notes; f["period"] = period
            return f
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Store a new expense and print it (with its generated id).",
            discussion: """
                --amount, --currency and --at are required. A new user is created with the
                default categories, as an import does; when its id is close to an existing
                one ("Alice" and "alice": ids are compared exactly) a note on stderr names
                that user. The id is generated: `x` and 26 letters and digits, in creation
                order.

                Example:
                  geospend expenses add --user alice --amount 4.50 --currency EUR \\
                      --at 2025-03-01T10:00:00+01:00 --title Coffee --category Food \\
                      --lat 60.1699 --lon 24.9384 --remind-at 2025-03-05T09:00:00+01:00
                  geospend expenses add --user alice --amount 2500 --currency EUR \\
                      --at 2025-03-25 --kind income --category Salary --format json
                  geospend expenses add --user alice --amount 12.90 --currency EUR \\
                      --at 2025-03-04 --title Tram --period "Lisbon trip"
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @OptionGroup var fields: Fields
        @Option(help: "text or json.") var format: Format = .text

        func run() async throws {
            let (expense, remind) = try ExpenseChanges.new(fields.given, user: user, remindAt: fields.remindAt)
            let store = try await database.openBackend(create: true)
            let (stored, note) = try await ExpenseChanges.add(expense, remindAt: remind, store: store)
            printOut(ExpenseOutput.render(stored, format: format))
            if let note { printErr("note: \(note)") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print one expense of the user.",
            discussion: """
                Example:
                  geospend expenses show x01jnq3d8z0135wmsa4qagstkk7 --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The expense id.", transform: Identity.normalized) var id: String
        @Option(help: "The user.", transform: Identity.normalized) var user: String
        @Option(help: "text or json.") var format: Format = .text

        func run() async throws {
            guard let stored = try await database.openBackend().expense(id: id, userID: user) else { throw noExpense(id, user) }
            printOut(ExpenseOutput.render(stored, format: format))
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Change fields of one expense of the user and print it.",
            discussion: """
                Only the options given change. An empty value unsets an optional field
                (--title "", --lat "" --lon "" for no place); --lat and --lon go together;
                a new place drops the old accuracy. The category must be active unless it
                stays the same, and of the expense's kind (an income category for
                --kind income).

                Example:
                  geospend expenses edit x01jnq3d8z0135wmsa4qagstkk7 --user alice \\
                      --amount 5.20 --notes "with a croissant"
                  geospend expenses edit x01jnq3d8z0135wmsa4qagstkk7 --user alice \\
                      --remind-at ""
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The expense id.", transform: Identity.normalized) var id: String
        @Option(help: "The user.", transform: Identity.normalized) var user: String
        @OptionGroup var fields: Fields
        @Option(help: "text or json.") var format: Format = .text

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            let stored = try await ExpenseChanges.edit(id: id, user: user, fields: fields.given, remindAt: fields.remindAt, store: store)
            printOut(ExpenseOutput.render(stored, format: format))
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete expenses of the user, leaving no trace of them in the file.",
            usage: "geospend expenses delete <ids> ... --user <user> [--no-vacuum]\n  [--db <db>]",
            discussion: """
                As `geospend users delete`: each row's space is zeroed, its spatial index
                entry scrubbed, the file rewritten (VACUUM, once for all the ids given)
                and the write-ahead log emptied; reminders go with their expenses. Every
                id must be the user's, or nothing is deleted. --no-vacuum skips the
                rewrite (faster on a large file; `geospend doctor --repair` finishes it
                later). On PostgreSQL the rows are deleted and the table vacuumed; a note
                says what the server keeps beyond that (its write-ahead log, backups).

                Examples:
                  geospend expenses delete x01jnq3d8z0135wmsa4qagstkk7 --user alice
                  geospend expenses delete e1 e2 e3 --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The expense ids.", transform: Identity.normalized) var ids: [String]
        @Option(help: "The user.", transform: Identity.normalized) var user: String
        @Flag(help: "Skip rewriting the file (VACUUM) afterwards.") var noVacuum = false

        func validate() throws {
            guard !ids.isEmpty else { throw ValidationError("give the id of an expense to delete (`geospend expenses list --user U` shows them)") }
        }

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            var unique: [String] = []
            for id in ids where !unique.contains(id) {
                guard try await store.expense(id: id, userID: user) != nil else { throw noExpense(id, user) }
                unique.append(id)
            }
            // One rewrite for all: the last deletion's covers the ones before it.
            var notes: [String] = []
            for (n, id) in unique.enumerated() {
                let rewrite: DeletionRewrite = noVacuum ? .skipped : n == unique.count - 1 ? .now : .batched
                guard let more = try await store.deleteExpense(id: id, userID: user, rewrite: rewrite) else { throw noExpense(id, user) }
                printOut("deleted expense \(OutputEscaping.visible(id))\n")
                for note in more where !notes.contains(note) { notes.append(note) }
            }
            for note in notes { printErr("note: \(note)") }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "The user's expenses, newest first, a page at a time.",
            usage: """
                geospend expenses list --user <user> [--from <from>] [--to <to>]
                  [--period <period>] [--kind <kind> ...] [--category <category> ...]
                  [--limit <limit>] [--after <after>] [--format <format>] [--db <db>]
                """,
            discussion: """
                A page ends with the cursor of the next one (JSON: "next", null on the
                last page); pass it to --after. Pages stay stable while expenses are
                added: a cursor marks a place in time order, not a row number.

                Example:
                  geospend expenses list --user alice --limit 20
                  geospend expenses list --user alice --limit 20 --after m7qv6yo0.eDAxbTg2eGZz
                  geospend expenses list --user alice --from 2025-03-01 \\
                      --to 2025-03-31 --category Food --format json
                  geospend expenses list --user alice --period 1
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @OptionGroup var window: WindowOptions
        @OptionGroup var period: PeriodOption
        @Option(help: "Only this kind; repeatable.") var kind: [ExpenseKind] = []
        @Option(help: "Only this category; repeatable.") var category: [String] = []
        @Option(help: "Expenses per page (1–1000).") var limit: Int = 50
        @Option(help: "The cursor a previous page ended with.") var after: String?
        @Option(help: "text or json.") var format: Format = .text

        func validate() throws {
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000") }
        }

        func run() async throws {
            let cursor = try after.map { text in
                guard let c = ExpenseCursor(text: text) else {
                    throw ValidationError("--after: \"\(OutputEscaping.visible(text))\" is not a cursor printed by `expenses list`")
                }
                return c
            }
            let (from, to) = try window.parsed()
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            try await NameChecks.categories(category, userID: user, in: store)
            let filter = ExpenseFilter(
                userID: user, from: from, to: to, kinds: Set(kind), categories: Set(category),
                period: try await period.resolved(user: user, in: store)?.id)
            let page = try await store.expensePage(filter, after: cursor, limit: limit)
            switch format {
            case .json:
                printOut(ExpenseJSON.page(page).serialized() + "\n")
            case .text:
                printOut(ExpenseOutput.table(page.expenses))
                printOut(page.next.map { "more: --after \($0.text)\n" } ?? "(no more)\n")
            }
        }
    }

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "The user's expenses whose title, merchant, notes or category contain TEXT.",
            usage: """
                geospend expenses search --user <user> <text> [--limit <limit>]
                  [--format <format>] [--db <db>]
                """,
            discussion: """
                Letters A–Z match in either case (other letters as typed); % and _ are
                plain characters. Newest first.

                Example:
                  geospend expenses search --user alice coffee
                  geospend expenses search --user alice "50%" --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Argument(help: "The text to look for.") var text: String
        @Option(help: "At most this many (1–1000).") var limit: Int = 100
        @Option(help: "text or json.") var format: Format = .text

        func validate() throws {
            guard !text.isEmpty else { throw ValidationError("TEXT is empty; give a word to look for") }
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000") }
        }

        func run() async throws {
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            let found = try await store.searchExpenses(userID: Identity.normalized(user), text: Identity.normalized(text), limit: limit)
            switch format {
            case .json: printOut(JSONOutput.array(found.map(ExpenseJSON.expense)).serialized() + "\n")
            case .text: printOut(ExpenseOutput.table(found))
            }
        }
    }

    /// Another user's expense reads exactly like a missing one.
    static func noExpense(_ id: String, _ user: String) -> Error { ExpenseChanges.noExpense(id, user) }
}
