import Foundation
import GeoSpendTestStores
import GeoSpendTestSupport
import Testing

/// The commands that edit one user's data — expenses, reminders, categories, kinds, periods,
/// budgets (summary, alerts, zones), tokens — give on `--db postgresql://…` what they give on a
/// SpatiaLite file: the same exit status, stdout and stderr (the database's name put back), step
/// by step on the same data (`WorldFixture`, imported by the CLI into both), error cases
/// included. Masked: the times each store stamps itself (an expense's `created_at` and
/// `updated_at`, a budget's or token's `created_at`) and the random ids `expenses add` draws.
/// A step that prints something random or store-specific compares less, and says what.
@Suite(.serialized, .enabled(if: PostGISTestServer.address != nil, "needs $GEOSPEND_TEST_POSTGRES (make test starts a server)"))
struct PostGISEditingCLITests {
    let cli = PostGISCLITests()

    static func masked(_ text: String) -> String {
        text.replacingOccurrences(of: #""created_at": ?"[^"]*""#, with: #""created_at":"…""#, options: .regularExpression)
            .replacingOccurrences(of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z"#, with: "…", options: .regularExpression)
            .replacingOccurrences(of: #"x[0-9a-z]{26}"#, with: "ID", options: .regularExpression)
    }

    /// What each step compares: everything, or (`stdoutOnly`) status and stdout — `expenses
    /// delete` notes differ by store (PostgreSQL's WAL note) — or (`stderrOnly`) status and
    /// stderr, for `tokens create`, whose stdout is the new random token.
    enum Compare { case all, stdoutOnly, stderrOnly }

    static let u = ["--user", "fiji"]

    /// The steps, in order (each changes what the next ones see), with the exit status each
    /// must have on the file.
    static let steps: [([String], Int32, Compare)] = [
        (["expenses", "show", "w1"] + u + ["--format", "json"], 0, .all),
        (["expenses", "show", "w1"] + u, 0, .all),
        (["expenses", "show", "w81"] + u, 2, .all),  // pole's expense: not fiji's
        (["expenses", "edit", "w1"] + u + ["--amount", "5.20", "--notes", "with a croissant", "--format", "json"], 0, .all),
        (["expenses", "edit", "w2"] + u + ["--category", "transport", "--remind-at", "2025-07-01T09:00:00+12:00", "--format", "json"], 0, .all),
        (["expenses", "edit", "w3"] + u + ["--category", "Fod"], 2, .all),
        (["expenses", "edit", "w3"] + u + ["--store", "no-such-store"], 2, .all),
        (["expenses", "edit", "w4"] + u + ["--lat", "-17.01", "--lon", "179.99", "--store", "fj-kava", "--format", "json"], 0, .all),
        (["expenses", "edit", "w4"] + u + ["--lat", "", "--lon", ""], 0, .all),
        (["expenses", "list"] + u + ["--limit", "7", "--format", "json"], 0, .all),
        (["expenses", "list"] + u + ["--from", "2025-03-01", "--to", "2025-03-31", "--category", "food"], 0, .all),
        (["expenses", "list"] + u + ["--category", "nosuch"], 2, .all),
        (["expenses", "search"] + u + ["CROISSANT", "--format", "json"], 0, .all),
        (["expenses", "search", "--user", "traveller", "café", "--limit", "5"], 0, .all),
        (["expenses", "search", "--user", "traveller", "CAFÉ"], 0, .all),  // É is not A–Z: no match on either
        (["expenses", "search"] + u + ["50%"], 0, .all),
        (["reminders", "due"] + u + ["--as-of", "2025-08-01T00:00:00Z", "--format", "json"], 0, .all),
        (["reminders", "due"] + u + ["--as-of", "2025-06-01T00:00:00Z"], 0, .all),
        (["categories", "list"] + u + ["--all", "--format", "json"], 0, .all),
        (["categories", "add"] + u + ["--name", "Coffee", "--icon", "coffee", "--color", "#6F4E37"], 0, .all),
        (["categories", "add"] + u + ["--name", "COFFEE"], 2, .all),  // a duplicate, letters compared without case
        (["categories", "edit", "Coffee"] + u + ["--name", "Cafes"], 0, .all),
        (["categories", "edit", "Food"] + u + ["--name", "Meals", "--color", "#00FF00"], 0, .all),
        (["categories", "edit", "Others"] + u + ["--name", "Misc"], 2, .all),  // both kinds have Others
        (["categories", "edit", "Cafes"] + u + ["--name", "meals"], 2, .all),  // taken
        (["categories", "deactivate", "Transport"] + u, 0, .all),
        (["expenses", "edit", "w5"] + u + ["--category", "Transport"], 2, .all),  // deactivated
        (["expenses", "edit", "w2"] + u + ["--notes", "still transport", "--format", "json"], 0, .all),  // its own stays
        (["categories", "delete", "Groceries"] + u, 0, .all),
        (["categories", "delete", "Health"] + u, 2, .all),  // a default
        (["categories", "delete", "Nope"] + u, 2, .all),
        (["categories"] + u + ["--all"], 0, .all),
        (["categories", "edit", "Transport"] + u + ["--activate"], 0, .all),
        (["kinds", "--format", "json"], 0, .all),
        (["kinds"], 0, .all),
        (["periods", "add"] + u + ["--name", "Wet season", "--from", "2025-01-01", "--to", "2025-04-30", "--format", "json"], 0, .all),
        (["periods", "add"] + u + ["--name", "Bad", "--from", "2025-05-01", "--to", "2025-04-30"], 2, .all),
        (["periods", "assign"] + u + ["--period", "1", "w1", "w2", "w3", "w6", "w7", "w9"], 0, .all),
        (["periods", "assign"] + u + ["--period", "1", "w81"], 2, .all),  // pole's
        (["periods", "assign"] + u + ["--period", "9", "w1"], 2, .all),
        (["expenses", "edit", "w4"] + u + ["--period", "wet SEASON"], 0, .all),  // issue 38: a period by name
        (["expenses", "edit", "w5"] + u + ["--period", "Dry season"], 2, .all),
        (["categories", "add"] + u + ["--name", "Savings", "--kind", "transfer"], 0, .all),
        (["periods", "list"] + u + ["--format", "json"], 0, .all),
        (["expenses", "list"] + u + ["--period", "1", "--format", "json"], 0, .all),
        (["insights"] + u + ["--period", "1", "--format", "json"], 0, .all),
        (["summary"] + u + ["--period", "1", "--format", "json"], 0, .all),
        (["near"] + u + ["--lat", "-17.0", "--lon", "179.995", "--radius", "5km", "--period", "1", "--format", "json"], 0, .all),
        (["export", "points"] + u + ["--period", "1"], 0, .all),
        (["report", "stores", "--period", "1", "--user", "fiji", "--min-users", "1", "--format", "json"], 0, .all),
        (["report", "stores", "--period", "7", "--user", "fiji", "--min-users", "1"], 2, .all),
        (["periods", "edit", "1"] + u + ["--name", "Rainy"], 0, .all),
        (["periods", "unassign"] + u + ["w3"], 0, .all),
        (["periods", "add"] + u + ["--name", "Dry", "--from", "2025-05-01"], 0, .all),
        (["periods", "assign"] + u + ["--period", "2", "w6", "w10"], 0, .all),  // w6 moves
        (["periods", "delete", "2"] + u, 0, .all),
        (["periods", "add"] + u + ["--name", "Dry again", "--from", "2025-05-01", "--format", "json"], 0, .all),  // 3, not 2
        (["periods", "list"] + u, 0, .all),
        (["budgets", "add"] + u + ["--name", "Year", "--amount", "900", "--currency", "FJD", "--from", "2025-01-01", "--to", "2025-12-31",
                                   "--category-limit", "Meals=200", "--format", "json"], 0, .all),
        (["budgets", "add"] + u + ["--name", "Meals", "--amount", "300", "--currency", "FJD", "--from", "2025-01-01", "--to", "2025-12-31",
                                   "--category", "meals"], 0, .all),
        // The same scope over overlapping days: the older one is deactivated (the overlap rule).
        (["budgets", "add"] + u + ["--name", "Meals H2", "--amount", "150", "--currency", "FJD", "--from", "2025-07-01", "--to", "2025-12-31",
                                   "--category", "Meals", "--format", "json"], 0, .all),
        (["budgets", "add"] + u + ["--name", "Market", "--amount", "50", "--currency", "FJD", "--from", "2025-01-01", "--to", "2025-12-31",
                                   "--zone-around", "-17.0004,179.9991", "--zone-radius", "2km", "--every", "month"], 0, .all),
        (["budgets", "add"] + u + ["--name", "Bad", "--amount", "5", "--currency", "FJD", "--from", "2025-02-01", "--to", "2025-01-01"], 2, .all),
        (["budgets", "add"] + u + ["--name", "Bad", "--amount", "5", "--currency", "FJD", "--from", "2025-01-01", "--to", "2025-02-01",
                                   "--category", "Fooood"], 2, .all),
        (["budgets", "list"] + u + ["--all", "--format", "json"], 0, .all),
        (["budgets", "list"] + u, 0, .all),
        (["budgets", "edit"] + u + ["--id", "1", "--amount", "950"], 0, .all),
        (["budgets", "edit"] + u + ["--id", "9", "--amount", "950"], 2, .all),
        (["budgets", "summary"] + u + ["--id", "1", "--as-of", "2025-06-30", "--format", "json"], 0, .all),
        (["budgets", "summary"] + u + ["--id", "4", "--as-of", "2025-03-15"], 0, .all),
        (["budgets", "alerts"] + u + ["--as-of", "2025-06-30", "--format", "json"], 0, .all),
        (["insights"] + u + ["--to", "2025-03-31", "--format", "json"], 0, .all),  // with the zone budget
        (["budgets", "delete"] + u + ["--id", "3"], 0, .all),
        (["budgets", "delete"] + u + ["--id", "3"], 2, .all),
        (["categories", "delete", "Meals"] + u, 2, .all),  // Food was a default, renamed: still one
        (["expenses", "add"] + u + ["--amount", "3.50", "--currency", "FJD", "--at", "2025-05-01T10:00:00+12:00", "--title", "Kava",
                                    "--category", "Meals", "--lat", "-17.0", "--lon", "179.99", "--store", "fj-kava", "--format", "json"], 0, .all),
        (["expenses", "add"] + u + ["--amount", "1", "--currency", "FJD", "--at", "2025-05-01", "--category", "Salary"], 2, .all),
        (["expenses", "add"] + u + ["--amount", "1", "--currency", "FJD", "--at", "2025-05-01", "--store", "nowhere"], 2, .all),
        (["expenses", "add", "--user", "Fiji", "--amount", "1", "--currency", "FJD", "--at", "2025-05-01", "--category", "food"], 0, .all),
        (["expenses", "delete", "w8"] + u, 0, .stdoutOnly),
        (["expenses", "delete", "w8"] + u, 2, .all),
        (["expenses", "delete", "w82"] + u, 2, .all),  // pole's
        (["tokens", "create"] + u + ["--scope", "read"], 0, .stderrOnly),
        (["tokens", "create", "--user", "pole", "--scope", "admin", "--expires", "30d"], 0, .stderrOnly),
        (["tokens", "create", "--user", "nobody"], 2, .all),
        (["tokens", "list", "--format", "json"], 0, .all),
        (["tokens", "revoke"] + u + ["1"], 0, .all),
        (["tokens", "revoke"] + u + ["1"], 2, .all),
        (["tokens", "revoke", "--user", "south", "1"], 2, .all),
        (["tokens", "list"], 0, .all),
        // Recurring rules (issue 38): the same days, ids and refusals on both stores.
        (["recurring", "add"] + u + ["--every", "monthly", "--from", "2025-01-31", "--amount", "95", "--currency", "FJD", "--title", "Rent",
                                     "--category", "Bills", "--format", "json"], 0, .all),
        (["recurring", "add"] + u + ["--every", "fortnightly", "--from", "2025-01-31", "--amount", "95", "--currency", "FJD"], 2, .all),
        (["recurring", "add"] + u + ["--every", "weekly", "--from", "2025-01-31", "--amount", "95", "--currency", "FJD", "--category", "Salary"], 2, .all),
        (["recurring", "add"] + u + ["--every", "14d", "--from", "2025-01-03", "--amount", "1200", "--currency", "FJD", "--kind", "income",
                                     "--category", "Salary"], 0, .all),
        (["recurring", "run"] + u + ["--as-of", "2025-03-31"], 0, .all),
        (["recurring", "run"] + u + ["--as-of", "2025-03-31", "--format", "json"], 0, .all),  // nothing more
        (["recurring", "list"] + u + ["--format", "json"], 0, .all),
        (["recurring", "edit", "1"] + u + ["--amount", "99", "--until", "2025-06-30"], 0, .all),
        (["recurring", "edit", "9"] + u + ["--amount", "1"], 2, .all),
        (["recurring", "run"] + u + ["--rule", "1", "--as-of", "2025-12-31", "--format", "json"], 0, .all),
        (["recurring", "delete", "2"] + u, 0, .all),
        (["recurring", "delete", "2"] + u, 2, .all),
        (["recurring", "list"] + u, 0, .all),
        (["recurring", "list", "--user", "pole"], 0, .all),
        // The community (issue 38): the same entries, refusals and feed on both stores.
        (["community", "join"] + u + ["--display-name", "Fiji"], 0, .all),
        (["community", "join", "--user", "pole", "--display-name", "fiji"], 2, .all),  // taken
        (["community", "post", "--user", "pole", "--type", "general", "--text", "hi"], 2, .all),  // not a member
        (["community", "post"] + u + ["--type", "general", "--rating", "3", "--text", "x"], 2, .all),
        (["community", "post"] + u + ["--type", "store_review", "--store", "fj-kava", "--rating", "4", "--text", "Strong kava", "--format", "json"], 0, .all),
        (["community", "post"] + u + ["--type", "product_review", "--product", "999", "--rating", "2"], 2, .all),
        (["community", "post"] + u + ["--type", "general", "--text", "Market day", "--format", "json"], 0, .all),
        (["community", "comment", "1"] + u + ["--text", "Still true"], 0, .all),
        (["community", "feed", "--format", "json"], 0, .all),
        (["community", "feed", "--near", "-17.0,-179.99", "--radius", "5km", "--format", "json"], 0, .all),  // across the antimeridian
        (["community", "feed", "--type", "general", "--format", "json"], 0, .all),
        (["community", "show", "1", "--format", "json"], 0, .all),
        (["community", "level"] + u + ["--format", "json"], 0, .all),
        (["community", "level", "--user", "pole"], 2, .all),
        (["community", "delete", "2", "--user", "pole"], 2, .all),
        (["community", "delete", "2"] + u, 0, .all),
        (["community", "show", "2"], 2, .all),
        (["expenses", "list"] + u + ["--from", "2025-01-01", "--to", "2025-12-31", "--limit", "40", "--format", "json"], 0, .all),
        // A user's stores (issue 38): added ones numbered per user, favourites, the default.
        (["stores", "add"] + u + ["--name", "Nadi Market", "--lat", "-17.01", "--lon", "179.99", "--kind", "marketplace", "--region", "Western",
                                  "--format", "json"], 0, .all),
        (["stores", "add", "--user", "pole", "--name", "X", "--lat", "91", "--lon", "0", "--kind", "supermarket"], 2, .all),
        (["stores", "add", "--user", "pole", "--name", "Pole shop", "--lat", "-89.9", "--lon", "0", "--kind", "supermarket"], 0, .all),
        (["stores", "favourite"] + u + ["fj-kava"], 0, .all),
        (["stores", "favourite"] + u + ["mine-2"], 2, .all),
        (["stores", "favourite", "--user", "pole", "mine-1"], 0, .all),
        (["stores", "default"] + u + ["mine-1"], 0, .all),
        (["stores", "list"] + u + ["--format", "json"], 0, .all),
        (["stores", "list"] + u, 0, .all),
        (["stores", "show"] + u + ["mine-1", "--format", "json"], 0, .all),
        (["stores", "unfavourite"] + u + ["fj-kava"], 0, .all),
        (["stores", "default"] + u + ["--clear"], 0, .all),
        (["stores", "default"] + u + ["fj-kava"], 0, .all),
        (["stores", "list"] + u, 0, .all),
        (["stores", "list", "--user", "pole", "--format", "json"], 0, .all),
        (["nearest-stores", "--lat", "-17.0", "--lon", "179.99", "-k", "3"] + u + ["--format", "json"], 0, .all),  // Nadi Market merged in
        (["nearest-stores", "--lat", "-17.0", "--lon", "179.99", "-k", "3", "--format", "json"], 0, .all),  // the registry's alone
        // A user's name and email (issue 38).
        (["users", "edit"] + u + ["--name", "Fiji Traveller", "--email", "fiji@example.org"], 0, .all),
        (["users", "edit"] + u + ["--email", "not an address"], 2, .all),
        (["users", "edit", "--user", "nobody", "--name", "X"], 2, .all),
        (["users", "edit"] + u + ["--name", ""], 0, .all),
        (["users", "list", "--format", "json"], 0, .all),
        (["users", "export", "fiji"], 0, .all),
        (["users", "export", "Fiji"], 0, .all),
        // Products, stores and corrections (issue 38), on `pricesCSV`: fiji's records 1–3, pole's 4.
        (["prices", "list"] + u + ["--format", "json"], 0, .all),
        (["prices", "edit", "2"] + u + ["--price", "4.10", "--quantity", "500", "--unit", "g", "--format", "json"], 0, .all),
        (["prices", "edit", "4"] + u + ["--price", "1"], 2, .all),  // pole's record
        (["prices", "edit", "1"] + u + ["--store", "nowhere"], 2, .all),
        (["prices", "delete", "3"] + u, 0, .all),
        (["prices", "delete", "3"] + u, 2, .all),
        (["prices", "history", "--product", "Kava root"] + u + ["--format", "json"], 0, .all),
        (["products", "tag", "Kava root", "--tag", "Drinks", "--color", "teal"] + u, 0, .all),
        (["products", "tag", "Taro", "--tag", "drinks"] + u, 0, .all),
        (["products", "favourite", "Taro"] + u, 0, .all),
        (["products", "sale", "Kava root"] + u, 0, .all),
        (["products", "favourite", "Taro", "--user", "pole"], 2, .all),  // not pole's product
        (["products", "list"] + u + ["--format", "json"], 0, .all),
        (["products", "list"] + u + ["--tag", "DRINKS", "--format", "csv"], 0, .all),
        (["products", "tags"] + u + ["--format", "json"], 0, .all),
        (["products", "edit", "Kava root"] + u + ["--name", "Kava"], 2, .all),  // pole has it too
        (["products", "edit", "Taro"] + u + ["--brand", "Fiji Farms", "--format", "json"], 0, .all),
        (["products", "untag", "Taro", "--tag", "Drinks"] + u, 0, .all),
        (["products", "merge", "Taro", "--into", "Kava root"] + u, 0, .all),
        (["products", "delete", "Kava root", "--user", "pole"], 0, .all),
        (["products", "list", "--user", "pole", "--format", "json"], 0, .all),
        (["products", "search", "", "--format", "json"], 0, .all),
        // Pantry items from a list's checks (issue 38): in the check's transaction, gone with its uncheck.
        (["lists", "add"] + u + ["--name", "Market", "--budget", "50", "--currency", "FJD", "--item", "Taro=2", "--item", "Kava root=0.5kg",
                                 "--over-budget"], 0, .all),
        (["lists", "check", "1", "Taro"] + u + ["--price", "3.50", "--at", "2025-06-01T10:00:00+12:00", "--expires", "2025-06-10"], 0, .all),
        (["lists", "check", "1", "Kava root"] + u + ["--price", "20", "--at", "2025-06-01T10:00:00+12:00", "--expires", "2025-13-01"], 2, .all),
        (["lists", "check", "1", "Kava root"] + u + ["--price", "20", "--at", "2025-06-01T10:00:00+12:00", "--expires", "2025-07-01"], 0, .all),
        (["pantry", "list"] + u + ["--format", "json"], 0, .all),
        (["pantry", "list"] + u, 0, .all),
        (["lists", "uncheck", "1", "Taro"] + u, 0, .all),
        (["pantry", "list"] + u + ["--all"], 0, .all),
        (["pantry", "list", "--user", "pole", "--format", "json"], 0, .all),
        (["users", "export", "fiji"], 0, .all),
    ]

    /// Price records for the steps: fiji's kava root, taro and a third, pole's kava root.
    static let pricesCSV = """
        product,store_id,price,currency,recorded_at,quantity,unit
        Kava root,fj-kava,12.00,FJD,2025-03-01T10:00:00+12:00,1,kg
        Taro,fj-market,3.50,FJD,2025-03-02T10:00:00+12:00,1,kg
        Coconut,fj-market,1.20,FJD,2025-03-03,1,pcs

        """

    @Test func editingCommandsAnswerAsTheFile() throws {
        defer { try? FileManager.default.removeItem(at: cli.dir) }  // no scratch left in /tmp
        let dbs = try cli.databases()
        let prices = cli.dir.appendingPathComponent("prices-fiji.csv").path, poles = cli.dir.appendingPathComponent("prices-pole.csv").path
        try Self.pricesCSV.write(toFile: prices, atomically: true, encoding: .utf8)
        try "product,store_id,price,currency,recorded_at\nKava root,fj-kava,13.00,FJD,2025-03-04\n".write(toFile: poles, atomically: true, encoding: .utf8)
        for db in [dbs.file, dbs.server] {
            for args in [["prices", "import", prices, "--user", "fiji"], ["prices", "import", poles, "--user", "pole"]] {
                let r = try cli.geospend(args + ["--db", db])
                try #require(r.status == 0, "\(args): \(r.err)")
            }
        }
        var compared = 0
        for (args, status, compare) in Self.steps {
            let a = try cli.geospend(args + ["--db", dbs.file]), b = try cli.geospend(args + ["--db", dbs.server])
            let line = args.joined(separator: " ")
            #expect(a.status == status, "\(line) on the file: \(a.err)")
            #expect(b.status == a.status, "\(line): exit \(a.status) on the file, \(b.status) on PostgreSQL: \(b.err)")
            if compare != .stderrOnly { #expect(Self.masked(a.out) == Self.masked(b.out), "\(line): stdout «\(a.out)» vs «\(b.out)»") }
            if compare != .stdoutOnly {
                let bErr = b.err.replacingOccurrences(of: dbs.server, with: dbs.file)
                #expect(Self.masked(a.err) == Self.masked(bErr), "\(line): stderr «\(a.err)» vs «\(bErr)»")
            }
            compared += 1
        }
        // Paging on: the cursor the first page ends with continues it on either store.
        let first = try cli.geospend(["expenses", "list", "--user", "fiji", "--limit", "5", "--db", dbs.file])
        let after = try #require(first.out.split(separator: "\n").last { $0.hasPrefix("more: --after ") }).dropFirst(14)
        let next = ["expenses", "list", "--user", "fiji", "--limit", "5", "--after", String(after), "--format", "json"]
        let (a, b) = (try cli.geospend(next + ["--db", dbs.file]), try cli.geospend(next + ["--db", dbs.server]))
        #expect(a.status == 0 && Self.masked(a.out) == Self.masked(b.out), "\(a.err) \(b.err)")
        #expect(compared == Self.steps.count)
    }

    /// The comparison can fail: an edit on the server alone shows in the outputs.
    @Test func differencesAreSeen() throws {
        defer { try? FileManager.default.removeItem(at: cli.dir) }  // no scratch left in /tmp
        let dbs = try cli.databases()
        #expect(try cli.geospend(["expenses", "edit", "w1", "--user", "fiji", "--amount", "9.99", "--db", dbs.server]).status == 0)
        #expect(try cli.geospend(["categories", "add", "--user", "fiji", "--name", "Kava", "--db", dbs.server]).status == 0)
        for args in [["expenses", "show", "w1", "--user", "fiji"], ["categories", "--user", "fiji", "--format", "json"]] {
            let a = try cli.geospend(args + ["--db", dbs.file]), b = try cli.geospend(args + ["--db", dbs.server])
            #expect(Self.masked(a.out) != Self.masked(b.out), "\(args)")
        }
    }

    /// `geospend serve --db postgresql://…`, the real binary on a loopback port: a token made by
    /// `tokens create` on the server works, its user's expense is served as on the file, another
    /// user's expense is 404 (as one that does not exist), a revoked token is refused (401).
    @Test func serveOnPostgreSQL() throws {
        defer { try? FileManager.default.removeItem(at: cli.dir) }  // no scratch left in /tmp
        let dbs = try cli.databases()
        let made = try cli.geospend(["tokens", "create", "--user", "fiji", "--scope", "read", "--db", dbs.server])
        try #require(made.status == 0, "\(made.err)")
        let token = try #require(made.out.split(separator: "\n").last.map(String.init))
        let log = cli.dir.appendingPathComponent("serve.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let server = try RunningProgram(
            CLITests.binary, ["serve", "--db", dbs.server, "--port", "0"], environment: PostGISCLITests.environment, output: log)
        defer {
            if server.isRunning { server.terminate(); server.waitUntilExit(timeout: .seconds(30)) }
        }
        var port: Int?
        let deadline = Date().addingTimeInterval(60)
        while port == nil && Date() < deadline && server.isRunning {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let r = text.range(of: "listening on http://127.0.0.1:") { port = Int(text[r.upperBound...].prefix { $0.isNumber }) } else { usleep(50_000) }
        }
        let p = try #require(port, "serve did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        func get(_ path: String, _ token: String) throws -> (status: Int, body: String) {
            let r = try runProgram("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(token)", "http://127.0.0.1:\(p)\(path)"])
            let status = Int(r.out.split(separator: "\n").last ?? "") ?? 0
            return (status, String(r.out.dropLast(String(status).count + 1)))
        }
        let own = try get("/api/v1/expenses/w1", token)
        let shown = try cli.geospend(["expenses", "show", "w1", "--user", "fiji", "--format", "json", "--db", dbs.file])
        let trimmed = { (t: String) in Self.masked(t).trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(own.status == 200 && own.body.contains("w1"), "\(own)")
        #expect(trimmed(own.body) == trimmed(shown.out), "\(own.body) vs \(shown.out)")
        let others = try get("/api/v1/expenses/w81", token)  // pole's
        let missing = try get("/api/v1/expenses/nonesuch", token)
        #expect(others.status == 404 && missing.status == 404, "\(others) \(missing)")
        #expect(others.body.replacingOccurrences(of: "w81", with: "nonesuch") == missing.body, "another user's expense reads as a missing one")
        #expect(try get("/api/v1/expenses/w1", "gs_nonsense").status == 401)
        // near and nearest-stores check the token in their one read scope (TokenCheckedRead).
        let queries = [
            ("/api/v1/near?lat=-17.0&lon=179.99&radius=100km", ["near", "--user", "fiji", "--lat", "-17.0", "--lon", "179.99", "--radius", "100km"]),
            ("/api/v1/nearest-stores?lat=-17.0&lon=179.99&k=3", ["nearest-stores", "--lat", "-17.0", "--lon", "179.99", "-k", "3"]),
        ]
        for (path, args) in queries {
            let served = try get(path, token)
            let onFile = try cli.geospend(args + ["--format", "json", "--db", dbs.file])
            #expect(served.status == 200 && served.body.contains("\"id\": ") && served.body == onFile.out, "\(path): \(served.body) vs \(onFile.out)")
            #expect(try get(path, "gs_nonsense").status == 401)
        }
        #expect(try cli.geospend(["tokens", "revoke", "--user", "fiji", "1", "--db", dbs.server]).status == 0)
        #expect(try get("/api/v1/expenses/w1", token).status == 401)
        for (path, _) in queries { #expect(try get(path, token).status == 401, "\(path)") }
    }
}
