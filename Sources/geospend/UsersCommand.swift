import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendService
import GeoSpendSpatiaLite

struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "A user's own data: list users, export everything of one user as JSON, delete it; their settings.",
        discussion: """
            Example:
              geospend users list
              geospend users export alice --out alice.json
              geospend users delete alice --yes
              geospend users import alice.json
              geospend users settings --user alice --keep-positions 365
            """,
        subcommands: [List.self, Edit.self, Export.self, Delete.self, Import.self, Settings.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Every user with their number of expenses (geotagged among them) and categories.",
            discussion: """
                Example:
                  geospend users list
                  geospend users list --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var replica: ReadReplicaOption
        @Option(help: "table, json or csv.") var format: OutputFormat = .table

        func run() async throws {
            let users = try await database.openBackend(replica: replica.readDB).users()
            switch format {
            case .json:
                let items: [JSONOutput] = users.map { u in
                    .object([
                        ("id", .string(u.id)), ("display_name", u.displayName.map { .string($0) } ?? .null), ("email", .text(u.email)),
                        ("created_at", .string(u.createdAt)), ("expenses", .integer(Int64(u.expenses))),
                        ("geotagged", .integer(Int64(u.geotaggedExpenses))), ("categories", .integer(Int64(u.categories))),
                    ])
                }
                printOut(JSONOutput.array(items).serialized() + "\n")
            case .csv:
                printOut(CSVTable(headers: Self.headers, rows: users.map(Self.row), textColumns: [0]).rendered())
            case .table:
                printOut(TextTable(headers: Self.headers, rows: users.map(Self.row), rightAligned: [1, 2, 3]).rendered())
            }
        }

        static let headers = ["user", "expenses", "geotagged", "categories", "created"]
        static func row(_ u: UserRecord) -> [String] {
            [u.id, String(u.expenses), String(u.geotaggedExpenses), String(u.categories), u.createdAt]
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Everything kept for one user as one JSON document: user, categories, expenses, stores used, budgets, periods, price records.",
            usage: """
                geospend users export <user> [--out <out>] [--db <db>]
                  [--read-db <read-db>]
                """,
            discussion: """
                Expenses come one per line with the keys of the JSON Lines import format,
                money as decimal strings, coordinates exact; the stores they name follow as
                objects. `jq -c '.expenses[]'` turns the export into a file
                `geospend import expenses` takes. The document reflects one instant even
                while an import runs. With --out the file is written whole or not at all.

                Example:
                  geospend users export alice --out alice.json
                  geospend users export alice | jq -c '.expenses[]' > alice.jsonl
                """)
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var replica: ReadReplicaOption
        @Argument(help: "The user id.", transform: Identity.normalized) var user: String
        @Option(name: .shortAndLong, help: "Output file, or - for stdout (default).") var out: String = "-"

        func run() async throws {
            let target = try OutputFile.target(out, protecting: OutputFile.protecting(database: database.path))
            let store = try await database.openBackend(replica: replica.readDB)
            struct NoSuchUser: Error {}  // thrown inside the write, so no file is left behind
            let counts: UserExport.Counts
            do {
                counts = try await OutputFile.write(to: target) { sink in
                    let counts = try await store.withUserData(user) { data in
                        try UserExport.write(data, generatedAt: MapExportRequest.now(), to: sink)
                    }
                    guard let counts else { throw NoSuchUser() }
                    return counts
                }
            } catch is NoSuchUser {
                throw await unknownUser(user, database)
            }
            if out != "-" {
                printErr("wrote user \(user): \(counts.expenses) expenses, \(counts.categories) categories, \(counts.stores) stores, \(counts.priceRecords) price records to \(out)")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete every row of one user, in one transaction; shared stores stay.",
            discussion: """
                Removes the user's expenses, categories, budgets, periods, price
                records (and the products no other user's records name) and the user,
                and with them their entries in the spatial index; the space they took
                is zeroed, the file rewritten (VACUUM: needs as much free disk space as
                the file takes) and the write-ahead log emptied, so no copy stays in the
                file. Asks for confirmation on a terminal; elsewhere (scripts, pipes)
                --yes is required. Export first if the data is still wanted.

                Free space is checked first: when the disk cannot hold the rewrite, nothing
                is deleted (exit 1) and --no-vacuum is offered. If the rewrite or the
                emptying of the write-ahead log fails after the deletion committed (a full
                disk), the error says what was deleted, exit status is 1, and
                `geospend doctor --repair` finishes the job once space is free (doctor
                reports it until then; also after --no-vacuum).

                On PostgreSQL (--db postgresql://…) the rows go in one transaction and the
                touched tables are vacuumed (--no-vacuum skips it); the server's write-ahead
                log, archives, replicas and earlier backups still hold old row versions
                (docs/POSTGIS.md).

                Example:
                  geospend users export alice \\
                      --out alice.json && geospend users delete alice --yes
                  geospend users delete alice --yes --no-vacuum && geospend doctor --repair
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The user id.", transform: Identity.normalized) var user: String
        @Flag(help: "Delete without asking (required when stdin is not a terminal).") var yes = false
        @Flag(help: "Skip rewriting the file (VACUUM) afterwards: faster on a large database, but fragments of the deleted rows may stay in unused page space until the next VACUUM.")
        var noVacuum = false

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            guard let record = try await store.users().first(where: { ExactText($0.id) == ExactText(user) }) else {
                // Say so when an earlier deletion (maybe of this very user) still owes its clean-up.
                guard let file = store as? SpatiaLiteStore, try file.pendingScrubSince() != nil else { throw await unknownUser(user, database) }
                throw ValidationError(
                    "no user \"\(user)\" in \(database.path); a deletion there has not finished rewriting the file "
                        + "(fragments may remain): run `geospend doctor --repair --db \(database.path)` to finish it")
            }
            if !yes {
                guard isatty(0) == 1 else {
                    throw ValidationError("refusing to delete user \(user) without --yes: stdin is not a terminal")
                }
                FileHandle.standardError.write(Data(
                    "Delete user \(user) with \(record.expenses) expenses and \(record.categories) categories from \(database.path)? This cannot be undone. [y/N] ".utf8))
                guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                    printErr("nothing deleted")
                    Foundation.exit(1)
                }
            }
            guard let deletion = try await store.deleteUser(user, rewriteFile: !noVacuum) else { throw await unknownUser(user, database) }
            let parts = deletion.rowsByTable.map { "\($0.table) \($0.rows)" }.joined(separator: ", ")
            printOut("deleted user \(user): \(deletion.totalRows) rows (\(parts))\n")
            for note in deletion.leftovers { printErr("note: \(note)") }
            // Uploads a killed service left behind hold some user's rows: they go too.
            let uploads = UploadedFile.removeLeftovers()
            if !uploads.isEmpty { printErr("note: removed \(uploads.count) upload(s) a stopped service left in \(FileManager.default.temporaryDirectory.path)") }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Restore a `users export` file into an empty user, all or nothing.",
            usage: """
                geospend users import <file> [--as <new-id>] [--db <db>]
                """,
            discussion: """
                Restores the user, settings, notification settings, categories,
                expenses (with reminders and times), periods, positions, visits,
                budgets, recurring rules, pantry items, price records with their
                products, product tags and marks, shopping lists, receipts (lines
                and kept photos) and the community membership, entries and
                comments, ids as exported (a receipt's or feed id another row took
                since is renumbered). Refused when the user already has data:
                delete it first (`users delete`) or restore under another id with
                --as. Stores are shared: the ones the export names must be in the
                database already. Never restored: API tokens and webhooks (no key
                or signing secret is ever exported; make new ones). All or
                nothing: on any error nothing is written.

                Example:
                  geospend users export alice --out alice.json
                  geospend users delete alice --yes
                  geospend users import alice.json
                  geospend users import alice.json --as alice2
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The export file (`geospend users export --out`).") var file: String
        @Option(
            name: .customLong("as"), help: ArgumentHelp("Restore under this user id instead of the exported one.", valueName: "new-id"),
            transform: Identity.normalized)
        var newID: String?

        func validate() throws {
            if let newID, newID.isEmpty || newID.count > 200 { throw ValidationError("--as: \"\(newID)\" is not a user id") }
        }

        func run() async throws {
            let url = URL(fileURLWithPath: file)
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? nil
            guard let size else { throw ValidationError("cannot read \(file): no such file") }
            guard size <= UserRestore.maximumBytes else { throw UserRestoreError.tooLarge(bytes: size, limit: UserRestore.maximumBytes) }
            let data = try UserRestore.read([UInt8](try Data(contentsOf: url)))
            let user = newID ?? data.userID
            let store = try await database.openBackend(writable: true)
            try await store.restore(data, as: user)
            printOut("restored user \(user) from \(file): \(data.summary)\n")
            if data.tokensLeftOut > 0 { printErr("note: \(data.tokensLeftOut) API token(s) not restored: make new ones (`geospend tokens create`)") }
            if data.webhooksLeftOut > 0 { printErr("note: \(data.webhooksLeftOut) webhook(s) not restored: their secrets are never exported; add them again") }
        }
    }

    static func unknownUser(_ user: String, _ database: DatabaseOptions) async -> Error {
        do { try await NameChecks.user(user, in: try await database.openBackend(), database: database.path) } catch { return error }
        return ValidationError("no user \"\(user)\" in \(database.path) (see geospend users list)")
    }
}
