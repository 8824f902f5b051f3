import ArgumentParser
import GeoSpend

extension UsersCommand {
    /// `geospend users edit`: a user's name and email (MONO's user, issue 38).
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Set a user's name and email; prints the user.",
            usage: """
                geospend users edit --user <user> [--name <name>] [--email <email>]
                  [--db <db>]
                """,
            discussion: """
                Only the options given change; "" unsets. The name is 1-100 characters on
                one line; the email is checked for shape only (nothing is sent to it).

                Examples:
                  geospend users edit --user alice --name "Alice Example" \\
                      --email alice@example.org
                  geospend users edit --user alice --email ""
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "Their name, 1-100 characters; \"\" unsets.") var name: String?
        @Option(help: "Their email address; \"\" unsets.") var email: String?

        func validate() throws {
            if name == nil && email == nil { throw ValidationError("nothing to change: give --name or --email") }
        }

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            let updated = try await UserProfile.edit(user: user, name: name, email: email, store: store)
            printOut(UserProfile.json(updated).serialized() + "\n")
        }
    }
}
