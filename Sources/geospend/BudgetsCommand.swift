import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

/// `geospend budgets`: spending limits per user over days, optionally for a category and/or a
/// zone (issue 17). The rules are `BudgetRules`; the figures `BudgetSummary`.
struct BudgetsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "budgets",
        abstract: "Budgets: limits over days, for a category or a place.",
        discussion: """
            A budget covers local days --from through --to (both included) in one
            currency. Adding one deactivates the user's active budgets of the same
            scope (currency, category or none, zone or none) whose days overlap it.

            Example:
              geospend budgets add --user alice --name Lunch --amount 150.00 \\
                  --currency EUR --from 2025-03-01 --to 2025-12-31 --every month \\
                  --zone-around 60.1699,24.9384 --zone-radius 400m
              geospend budgets summary --user alice --id 1 --as-of 2025-03-15
              geospend budgets alerts --user alice --as-of 2025-03-15
            """,
        subcommands: [Add.self, List.self, Edit.self, Delete.self, Summary.self, Alerts.self])

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a budget and print it with its id.",
            usage: """
                geospend budgets add --user <user> --name <name> --amount <amount>
                  --currency <currency> --from <from> --to <to> [--category <c>]
                  [--every week|month|year] [--category-limit <name=amount> ...]
                  [--zone-around <lat,lon> --zone-radius <r> | --zone-geojson <file>]
                  [--thresholds <percentages>] [--format <format>] [--db <db>]
                """,
            discussion: """
                --amount is the limit of the whole --from…--to, or with --every of each
                calendar week (Monday first), month or year in it. Only expenses of
                --currency count; with --category only that category's; with a zone
                only those inside it (geodesic distance ≤ --zone-radius, or inside
                the GeoJSON polygon; a zone across ±180° is a MultiPolygon cut there).
                Active budgets of the same scope whose days overlap are deactivated.
                The name is 1-100 characters on one line (trimmed, no control or
                bidi characters); --category and --category-limit name the user's
                expense categories in any case and are stored as the category is
                named. Ids count each user's budgets from 1 and are never reused.
                --thresholds: the percentages of --amount whose crossing raises a
                notification (default 80,100; whole numbers 1-1000, at most ten).

                Example:
                  geospend budgets add --user alice --name March --amount 500.00 \\
                      --currency EUR --from 2025-03-01 --to 2025-03-31 \\
                      --category-limit Food=200.00 --format json
                  geospend budgets add --user alice --name Office --amount 150 \\
                      --currency EUR --from 2025-01-01 --to 2025-12-31 \\
                      --every month --zone-geojson office.geojson --thresholds 50,100
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The budget's name: 1–100 characters on one line.") var name: String
        @Option(parsing: .unconditional, help: "The limit, a decimal like 500.00.") var amount: String
        @Option(help: "ISO 4217 code in capitals, e.g. EUR.") var currency: String
        @Option(help: "First day, YYYY-MM-DD.") var from: String
        @Option(help: "Last day, YYYY-MM-DD (included).") var to: String
        @Option(help: "Count only this expense category (stored as the category is named).") var category: String?
        @Option(help: "Repeat the amount every week, month or year.") var every: Budget.Recurrence?
        @Option(parsing: .singleValue, help: ArgumentHelp("A limit for one category, e.g. Food=200.00 (repeatable).", valueName: "name=amount"))
        var categoryLimit: [String] = []
        @OptionGroup var zone: ZoneOptions
        @Option(help: ArgumentHelp("Percentages that notify, e.g. 50,80,100 (default 80,100).", valueName: "percentages"))
        var thresholds: String?
        @Option(help: "table or json.") var format: Format = .table

        func validate() throws {
            if let thresholds { _ = try Self.checked(thresholds) }
        }

        static func checked(_ text: String) throws -> [Int64] {
            do { return try BudgetThresholds.parse(text, option: "--thresholds") } catch let e as UsageError { throw ValidationError(e.message) }
        }

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            let userID = Identity.normalized(user)
            try await NameChecks.user(userID, in: store, database: database.path)
            let budget = try await BudgetFields.new(
                user: userID, name: name, amount: amount, currency: currency, from: from, to: to, category: category, every: every,
                limits: categoryLimit, zone: zone.parsed, thresholds: try thresholds.map(Self.checked), store: store)
            guard let saved = try await store.saveBudget(budget) else { throw ValidationError("the budget could not be saved") }
            printSaved(saved, verb: "added", format: format)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "A user's active budgets, newest --from first.",
            usage: """
                geospend budgets list --user <user> [--all] [--format <format>]
                  [--db <db>]
                """,
            discussion: """
                --all adds the inactive ones (deactivated by a newer budget of the
                same scope) after them.

                Example:
                  geospend budgets list --user alice
                  geospend budgets list --user alice --all --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Flag(help: "Include inactive budgets.") var all = false
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            let budgets = try await store.budgets(userID: Identity.normalized(user), includeInactive: all)
            switch format {
            case .json: printOut(JSONOutput.array(budgets.map(BudgetJSON.budget)).serialized() + "\n")
            case .table:
                let headers = ["id", "name", "amount", "currency", "from", "to", "category", "every", "zone", "thresholds", "active"]
                let rows = budgets.map { b in
                    // TextTable escapes every cell: escaping here too showed U+202E as \\u{202E}.
                    [String(b.id), b.name, b.amount.decimalString, b.amount.currency.code, "\(b.from)", "\(b.to)",
                     b.category ?? "", b.every?.rawValue ?? "", zoneText(b.zone), BudgetThresholds.text(b.thresholds), b.isActive ? "yes" : "no"]
                }
                printOut(TextTable(headers: headers, rows: rows, rightAligned: [0, 2]).rendered())
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Change a budget's name, amount, days, recurrence or limits.",
            usage: """
                geospend budgets edit --user <user> --id <id> [--name <name>]
                  [--amount <amount>] [--from <from>] [--to <to>]
                  [--every week|month|year | --once]
                  [--category-limit <name=amount> ... | --no-category-limits]
                  [--thresholds <percentages>] [--format <format>] [--db <db>]
                """,
            discussion: """
                Currency, category and zone make the budget's scope: add a new budget
                to change them. An edited active budget deactivates the active budgets
                of its scope whose days it now overlaps, as adding does. --every and
                --once, and --category-limit and --no-category-limits, contradict
                each other (exit 2).

                Example:
                  geospend budgets edit --user alice --id 3 --amount 550.00
                  geospend budgets edit --user alice --id 3 --to 2025-04-30 \\
                      --category-limit Food=250.00
                  geospend budgets edit --user alice --id 3 --thresholds 50,80,100
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The budget's id.") var id: Int64
        @Option(help: "A new name.") var name: String?
        @Option(parsing: .unconditional, help: "A new limit.") var amount: String?
        @Option(help: "A new first day.") var from: String?
        @Option(help: "A new last day.") var to: String?
        @Option(help: "week, month or year.") var every: Budget.Recurrence?
        @Flag(help: "Make the budget one period again (no --every).") var once = false
        @Option(parsing: .singleValue, help: ArgumentHelp("Replaces every category limit (repeatable).", valueName: "name=amount"))
        var categoryLimit: [String] = []
        @Flag(help: "Remove every category limit.") var noCategoryLimits = false
        @Option(help: ArgumentHelp("Replaces the percentages that notify, e.g. 50,80,100.", valueName: "percentages"))
        var thresholds: String?
        @Option(help: "table or json.") var format: Format = .table

        func validate() throws {
            if let thresholds { _ = try Add.checked(thresholds) }
        }

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            let userID = Identity.normalized(user)
            try await NameChecks.user(userID, in: store, database: database.path)
            var changes = BudgetFields.Changes()
            (changes.name, changes.amount, changes.from, changes.to, changes.every) = (name, amount, from, to, every)
            (changes.once, changes.categoryLimits, changes.noCategoryLimits) = (once, categoryLimit, noCategoryLimits)
            changes.thresholds = try thresholds.map(Add.checked)
            let b = try await BudgetFields.edited(id: id, user: userID, changes, store: store)
            guard let saved = try await store.saveBudget(b) else { throw BudgetFields.noBudget(id, userID) }
            printSaved(saved, verb: "changed", format: format)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a budget and its category limits.",
            discussion: """
                Budgets it deactivated stay inactive. Expenses are not touched.

                Example:
                  geospend budgets delete --user alice --id 3
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The budget's id.") var id: Int64

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            let userID = Identity.normalized(user)
            try await NameChecks.user(userID, in: store, database: database.path)
            guard try await store.deleteBudget(id: id, userID: userID) else { throw BudgetFields.noBudget(id, userID) }
            printOut("deleted budget \(id)\n")
        }
    }

    struct Summary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "summary",
            abstract: "A budget's spending on a day: spent, remaining, projection.",
            usage: """
                geospend budgets summary --user <user> --id <id> [--as-of <date>]
                  [--format <format>] [--db <db>]
                """,
            discussion: """
                Counts expenses (kind expense) of the budget's currency on its days up
                to and including --as-of (each on its local day), of its category and
                inside its zone when it has them. Expenses of other currencies are
                listed as not counted: nothing is converted. With --every the days are
                the week (Monday first), month or year holding --as-of. Money is exact,
                rounded once, half away from zero. Without --as-of: today in the
                user's time zone (users settings --timezone), else the machine's.

                Example:
                  geospend budgets summary --user alice --id 1 --as-of 2025-03-15
                  geospend budgets summary --user alice --id 1 --as-of 2025-03-15 \\
                      --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The budget's id.") var id: Int64
        @Option(help: "The day to measure on, YYYY-MM-DD (default: today).") var asOf: String?
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend()
            let userID = Identity.normalized(user)
            try await NameChecks.user(userID, in: store, database: database.path)
            guard let b = try await store.budget(id: id, userID: userID) else { throw BudgetFields.noBudget(id, userID) }
            let day = try await BudgetFields.asOf(asOf, "--as-of", user: userID, store: store, else: .current)
            let s = try await BudgetFields.summary(b, asOf: day, store: store)
            switch format {
            case .json: printOut(BudgetJSON.summary(s).serialized() + "\n")
            case .table:
                let c = b.amount.currency
                func m(_ minor: Int64) -> String { Money.decimalString(minor, digits: c.minorDigits) + " " + c.code }
                var rows: [[String]] = [
                    ["budget", "\(b.id) \(b.name)"], ["days", "\(s.window.lowerBound) … \(s.window.upperBound)"],
                    ["amount", m(b.amount.minorUnits)], ["spent", m(s.spentMinor)], ["remaining", m(s.remainingMinor)],
                    ["used", formatDecimal(Double(s.percentageHundredths) / 100, digits: 2) + " %"],
                    ["days passed", "\(s.daysPassed) of \(s.totalDays) (\(s.daysRemaining) left)"],
                    ["daily average", m(s.dailyAverageMinor)], ["projected", m(s.projectedTotalMinor)],
                    ["on track", s.onTrack ? "yes" : "no"], ["thresholds", b.thresholds.map { "\($0) %" }.joined(separator: ", ")],
                ]
                for line in s.byCategory {
                    let limit = line.limit.map { " of \($0.decimalString)" } ?? ""
                    rows.append(["category " + (line.category ?? "(none)"), m(line.spentMinor) + limit])
                }
                for t in s.notCounted { rows.append(["not counted", "\(t.total.decimalString) \(t.currency.code) (\(t.count))"]) }
                printOut(keyValueLines(rows))
            }
        }
    }

    struct Alerts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alerts",
            abstract: "Active budgets at or over 80 % on a day.",
            usage: """
                geospend budgets alerts --user <user> [--as-of <date>]
                  [--format <format>] [--db <db>]
                """,
            discussion: """
                Each active budget whose days hold --as-of and whose spending is at
                least 80 % of its amount: level warning, or exceeded from 100 %.
                `insights --to DAY` shows zone budgets by the same rule: those whose
                days hold the day. Without --as-of: today in the user's time zone.

                Example:
                  geospend budgets alerts --user alice --as-of 2025-03-15 --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The day to measure on, YYYY-MM-DD (default: today).") var asOf: String?
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend()
            let userID = Identity.normalized(user)
            try await NameChecks.user(userID, in: store, database: database.path)
            let day = try await BudgetFields.asOf(asOf, "--as-of", user: userID, store: store, else: .current)
            var summaries: [BudgetSummary] = []
            for b in try await store.budgets(userID: userID, includeInactive: false) { summaries.append(try await BudgetFields.summary(b, asOf: day, store: store)) }
            let alerts = BudgetAlert.alerts(summaries)
            switch format {
            case .json: printOut(JSONOutput.array(alerts.map(BudgetJSON.alert)).serialized() + "\n")
            case .table: for a in alerts { printOut("\(a.level.rawValue): \(OutputEscaping.visible(a.message)) (budget \(a.summary.budget.id))\n") }
            }
        }
    }
}

extension Budget.Recurrence: ExpressibleByArgument {}

/// `key  value` lines, keys padded to the longest: a record, not a table, so no header row.
/// Escaped once here (`OutputEscaping`), as TextTable escapes its cells.
private func keyValueLines(_ pairs: [[String]]) -> String {
    let escaped = pairs.map { $0.map(OutputEscaping.visible) }
    let width = escaped.map { $0[0].count }.max() ?? 0
    return escaped.map { $0[0] + String(repeating: " ", count: width - $0[0].count) + "  " + $0[1] + "\n" }.joined()
}

private func zoneText(_ z: BudgetZone?) -> String {
    switch z {
    case nil: return ""
    case .circle(let c, let r)?: return "\(formatDecimal(c.latitude, digits: 6)),\(formatDecimal(c.longitude, digits: 6)) \(r)"
    case .polygon?: return "polygon"
    }
}

private func printSaved(_ saved: (budget: Budget, deactivated: [Int64]), verb: String, format: BudgetsCommand.Format) {
    let b = saved.budget
    switch format {
    case .json:
        printOut(BudgetFields.savedJSON(saved).serialized() + "\n")
    case .table:
        printOut("\(verb) budget \(b.id): \(OutputEscaping.visible(b.name)), \(b.amount.decimalString) \(b.amount.currency.code), \(b.from) … \(b.to)\n")
        for id in saved.deactivated { printOut("deactivated budget \(id) (same scope, overlapping days)\n") }
    }
}
