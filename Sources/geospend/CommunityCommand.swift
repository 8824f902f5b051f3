import ArgumentParser
import Foundation
import GeoSpend

/// `geospend community`: experiences about stores and products, shared by members who joined.
struct CommunityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "community",
        abstract: "The community: share experiences about stores and products.",
        discussion: """
            Joining is a choice: others see your display name, never your user id,
            your expenses or your location history. Members post experiences
            (price_update, store_review, product_review, new_product, general);
            a member's new price records become price_update entries. An update
            is verified when your own expense or location history puts you at
            the store that day; verified updates earn levels, from New Shopper
            (0) to Legendary Shopper (200+).

            Example:
              geospend community join --user user1 --display-name Ann
              geospend community post --user user1 --type store_review \\
                  --store 317766538 --rating 4 --text "Fresh bread daily"
              geospend community feed --near 60.17,24.94 --radius 2km
            """,
        subcommands: [Join.self, Leave.self, Post.self, Comment.self, Feed.self, Show.self, Delete.self, Level.self])

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "join",
            abstract: "Join the community under a display name (again: rename).",
            usage: """
                geospend community join --user <user> --display-name <name>
                  [--db <db>]
                """,
            discussion: """
                The display name is what others see (at most 40 characters, unique).
                Your price records from now on become feed entries.

                Example:
                  geospend community join --user user1 --display-name Ann
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The name others see.") var displayName: String

        func run() async throws {
            let name = try CommunityRules.displayName(displayName)
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            let m = try await store.joinCommunity(userID: user, displayName: name)
            printOut("joined the community as \"\(m.displayName)\"\n")
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "leave",
            abstract: "Leave the community; your entries and comments are deleted.",
            discussion: """
                Example:
                  geospend community leave --user user1
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            let left = try await store.leaveCommunity(userID: user)
            printOut(left ? "left the community; your entries and comments are deleted\n" : "not a member: nothing to do\n")
        }
    }

    struct Post: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "post",
            abstract: "Post an experience about a store or product.",
            usage: """
                geospend community post --user <user> --type <type> [--store <id>]
                  [--product <id>] [--rating <1-5>] [--text <text>]
                """,
            discussion: """
                --rating 1-5 is required for store_review and product_review and
                refused for the other types. At most 30 posts and comments an hour.

                Example:
                  geospend community post --user user1 --type store_review \\
                      --store 317766538 --rating 4 --text "Fresh bread daily"
                  geospend community post --user user1 --type general \\
                      --text "Market on Saturday"
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "price_update, store_review, product_review, new_product, general.") var type: String
        @Option(help: "A store id (`geospend stores`).") var store: String?
        @Option(help: "A product id (`geospend products`).") var product: Int64?
        @Option(help: "1 to 5, reviews only.") var rating: Int?
        @Option(help: "What you have to say (at most 2000 characters).") var text: String?
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let fields = try CommunityRules.fields(type: type, storeID: self.store, productID: product, rating: rating, text: text)
            let db = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: db, database: database.path)
            let at = CommunityRules.timestamp(Date(), in: try await db.timeZone(of: user, else: .current))
            let post = try await db.addCommunityPost(userID: user, fields, at: at)
            CommunityCommand.show([post], format: format, nextBefore: nil)
        }
    }

    struct Comment: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "comment",
            abstract: "Comment on a feed entry.",
            discussion: """
                Example:
                  geospend community comment 12 --user user1 --text "Still true"
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The entry's id.") var id: Int64
        @Option(help: "The user.") var user: String
        @Option(help: "The comment (at most 2000 characters).") var text: String

        func run() async throws {
            let text = try CommunityRules.text(self.text, option: "--text")
            let db = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: db, database: database.path)
            let at = CommunityRules.timestamp(Date(), in: try await db.timeZone(of: user, else: .current))
            let c = try await db.addCommunityComment(userID: user, postID: id, text: text, at: at)
            printOut("comment \(c.id) on entry \(c.postID)\n")
        }
    }

    struct Feed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "feed",
            abstract: "The feed, newest first: display names, levels, verified.",
            usage: """
                geospend community feed [--store <id>] [--product <id>] [--type <type>]
                  [--near <lat,lon> [--radius <r>]] [--before <id>] [--limit <n>]
                """,
            discussion: """
                --near keeps entries about stores within --radius (default 1km,
                geodesic) of the point. Pages: pass the printed next --before.

                Example:
                  geospend community feed --type store_review --limit 20
                  geospend community feed --near 60.17,24.94 --radius 2km
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only entries about this store.") var store: String?
        @Option(help: "Only entries about this product.") var product: Int64?
        @Option(help: "Only this type.") var type: String?
        @Option(parsing: .unconditional, help: "LAT,LON: entries about stores near it.") var near: String?
        @Option(help: "With --near: how near (300m, 2km; default 1km).") var radius: String?
        @Option(help: "Entries below this id (the next page).") var before: Int64?
        @Option(help: "At most this many (1-500).") var limit: Int = CommunityFeed.defaultLimit
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let distance = try CommunityFeed.distanceFilter(near: near, radius: radius)
            let type = try self.type.map { try CommunityPostType(checking: $0) }
            let db = try await database.openBackend()
            let page = try await CommunityFeed.page(
                db, CommunityFeedFilter(storeID: store, productID: product, type: type, before: before), near: distance?.0,
                radius: distance?.1, limit: limit)
            CommunityCommand.show(page.posts, format: format, nextBefore: page.nextBefore)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "One feed entry with its comments.",
            discussion: """
                Example:
                  geospend community show 12
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The entry's id.") var id: Int64
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let db = try await database.openBackend()
            guard let thread = try await db.communityThread(id: id) else { throw CommunityRefusal.noSuchPost(id) }
            switch format {
            case .json: printOut(CommunityJSON.thread(thread.post, thread.comments).serialized() + "\n")
            case .table:
                var text = CommunityCommand.line(thread.post)
                for c in thread.comments { text += "  #\(c.id) \(c.displayName) (\(c.createdAt)): \(c.text)\n" }
                printOut(text)
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete your own entry (with its comments) or comment.",
            discussion: """
                Example:
                  geospend community delete 12 --user user1
                  geospend community delete 7 --comment --user user1
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The entry's (or with --comment the comment's) id.") var id: Int64
        @Option(help: "The user.") var user: String
        @Flag(help: "The id is a comment's.") var comment = false

        func run() async throws {
            let db = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: db, database: database.path)
            let deleted: Bool
            if comment { deleted = try await db.deleteCommunityComment(userID: user, id: id) } else {
                deleted = try await db.deleteCommunityPost(userID: user, id: id)
            }
            guard deleted else {
                throw ValidationError("user \"\(Identity.normalized(user))\" has no \(comment ? "comment" : "entry") \(id): see `geospend community feed`")
            }
            printOut("deleted \(comment ? "comment" : "entry") \(id)\n")
        }
    }

    struct Level: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "level",
            abstract: "A member's price updates, verified ones and level.",
            discussion: """
                Example:
                  geospend community level --user user1
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let db = try await database.openBackend()
            try await NameChecks.user(user, in: db, database: database.path)
            guard let s = try await db.communityStanding(userID: user) else { throw CommunityRefusal.notMember(Identity.normalized(user)) }
            switch format {
            case .json: printOut(CommunityJSON.standing(s).serialized() + "\n")
            case .table:
                printOut("\(s.displayName): \(s.level.rawValue), \(s.verifiedUpdates) verified of \(s.priceUpdates) price updates\n")
            }
        }
    }

    static func line(_ p: CommunityPost) -> String {
        let f = p.fields
        var head = "#\(p.id) \(p.displayName) [\(CommunityLevel(updates: p.posterUpdates).rawValue)] \(f.type.rawValue)"
        if let s = f.storeID { head += " store \(s)" }
        if let pr = f.productID { head += " product \(pr)" }
        if let price = f.price { head += " \(price.decimalString) \(price.currency.code)" }
        if let r = f.rating { head += " \(r)/5" }
        head += p.verified ? " (verified)" : " (unverified)"
        head += " \(p.createdAt)"
        if p.commentCount > 0 { head += ", \(p.commentCount) comment\(p.commentCount == 1 ? "" : "s")" }
        return head + "\n" + (f.text.map { "  \($0)\n" } ?? "")
    }

    static func show(_ posts: [CommunityPost], format: Format, nextBefore: Int64?) {
        switch format {
        case .json: printOut(CommunityJSON.feed(posts, nextBefore: nextBefore).serialized() + "\n")
        case .table:
            var text = posts.isEmpty ? "No entries.\n" : posts.map(line).joined()
            if let nextBefore { text += "more: --before \(nextBefore)\n" }
            printOut(text)
        }
    }
}
