import ArgumentParser
import GeoSpend

/// `geospend stores`: a user's favourite stores, their default store, and stores they add.
struct StoresCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stores",
        abstract: "A user's stores: favourites, one default, stores they added.",
        discussion: """
            The registry's stores (`import stores`) are shared by every user. A
            store a user adds is theirs alone: its id is mine-1, mine-2 …, and no
            other user sees it. Favourites and the default may be either kind.

            Example:
              geospend stores add --user user1 --name "K-Market Kallio" \\
                  --lat 60.1841 --lon 24.9500 --kind supermarket --region Uusimaa
              geospend stores favourite --user user1 317766538
              geospend stores default --user user1 mine-1
              geospend stores list --user user1
            """,
        subcommands: [Add.self, List.self, Show.self, Favourite.self, Unfavourite.self, Default.self])

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a store only this user sees; prints it with its id.",
            usage: """
                geospend stores add --user <user> --name <name> --lat <lat> --lon <lon>
                  --kind <kind> [--region <region>] [--format table|json]
                """,
            discussion: """
                --kind is an OpenStreetMap shop or amenity value: supermarket is
                shop:supermarket, cafe is amenity:cafe; amenity:… or shop:… as given.

                Example:
                  geospend stores add --user user1 --name "Lidl Kalasatama" \\
                      --lat 60.1868 --lon 24.9790 --kind supermarket
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The store's name: 1–100 characters.") var name: String
        @Option(parsing: .unconditional, help: "Latitude, degrees (WGS84).") var lat: Double
        @Option(parsing: .unconditional, help: "Longitude, degrees (WGS84).") var lon: Double
        @Option(help: "supermarket, amenity:cafe, shop:bakery …") var kind: String
        @Option(help: "A state or region, e.g. Uusimaa.") var region: String?
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let fields = try AddedStoreFields.checked(name: name, lat: lat, lon: lon, kind: kind, region: region)
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            guard let entry = try await store.addStore(userID: user, fields) else { throw UsageError("--user \(user): no such user") }
            StoresCommand.show([StoreChoiceListing.Row(entry: entry, favourite: false, isDefault: false)], format: format, single: true)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "The user's default, favourite and added stores.",
            usage: "geospend stores list --user <user> [--format table|json]",
            discussion: """
                The default first, then favourites by id, then added stores by id.

                Example:
                  geospend stores list --user user1 --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            StoresCommand.show(StoreChoiceListing.rows(try await store.storeChoices(userID: user)), format: format, single: false)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "One store as the user sees it, with their marks.",
            usage: "geospend stores show --user <user> <store> [--format table|json]",
            discussion: "Example:\n  geospend stores show --user user1 mine-1")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Argument(help: "A store id: the registry's, or the user's mine-N.") var id: String
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            StoresCommand.show([try await StoreChoiceListing.show(user: user, id: id, store: store)], format: format, single: true)
        }
    }

    struct Favourite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "favourite", abstract: "Mark a store as one of the user's favourites.",
            discussion: "Example:\n  geospend stores favourite --user user1 317766538")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Argument(help: "A store id: the registry's, or the user's mine-N.") var id: String

        func run() async throws { try await StoresCommand.mark(database, user, id, true) }
    }

    struct Unfavourite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unfavourite", abstract: "Take a store off the user's favourites.",
            discussion: "Example:\n  geospend stores unfavourite --user user1 317766538")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Argument(help: "A store id: the registry's, or the user's mine-N.") var id: String

        func run() async throws { try await StoresCommand.mark(database, user, id, false) }
    }

    struct Default: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "default", abstract: "Set the user's one default store, or --clear it.",
            usage: "geospend stores default --user <user> (<store> | --clear)",
            discussion: """
                Example:
                  geospend stores default --user user1 mine-1
                  geospend stores default --user user1 --clear
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Argument(help: "A store id: the registry's, or the user's mine-N.") var id: String?
        @Flag(help: "Clear the default store.") var clear = false

        func validate() throws {
            if clear && id != nil { throw ValidationError("give a store or --clear, not both") }
            if !clear && id == nil { throw ValidationError("give a store id, or --clear to have no default store") }
        }

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            let u = OutputEscaping.visible(Identity.normalized(user))
            if let row = try await StoreChoiceListing.setDefault(user: user, id: clear ? nil : id, store: store) {
                printOut("default store of \(u): \(OutputEscaping.visible(row.entry.id)) (\(OutputEscaping.visible(row.entry.store.name ?? "unnamed")))\n")
            } else {
                printOut("default store of \(u) cleared\n")
            }
        }
    }

    static func mark(_ database: DatabaseOptions, _ user: String, _ id: String, _ on: Bool) async throws {
        let store = try await database.openBackend(writable: true)
        try await NameChecks.user(user, in: store, database: database.path)
        let row = try await StoreChoiceListing.favourite(user: user, id: id, on, store: store)
        let name = row?.entry.store.name.map { " (\(OutputEscaping.visible($0)))" } ?? ""
        printOut("store \(OutputEscaping.visible(id))\(name) \(on ? "is a favourite" : "is no longer a favourite")\n")
    }

    static func show(_ rows: [StoreChoiceListing.Row], format: Format, single: Bool) {
        switch format {
        case .json: printOut((single ? StoreChoiceListing.json(rows[0]) : JSONOutput.array(rows.map(StoreChoiceListing.json))).serialized() + "\n")
        case .table: printOut(StoreChoiceListing.table(rows))
        }
    }
}
