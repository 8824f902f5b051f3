import Foundation

/// Creating what recurring rules made due (`geospend recurring run`, the service's scheduler):
/// for each of the user's rules, one expense per day from its next due day through the as-of
/// day, and the rule moved past them, in one transaction per rule.
///
/// Idempotent: a day's expense has a fixed id (`RecurringRule.expenseID`), and the rule's next
/// due day moves only if no other run moved it first, so running twice — or two runs at once —
/// creates nothing more. An expense of the rule the user deleted is not made again: the rule
/// has moved past its day. An expense the user edited stays as edited.
public enum RecurringRun {
    /// At most this many days of one rule per run: a daily rule from 1970 would otherwise write
    /// twenty thousand expenses in one transaction. The rest follow on the next run.
    public static let maxDaysPerRun = 1000

    /// What a run did for one rule.
    public struct Created: Sendable, Hashable {
        public let rule: Int64
        /// The ids of the expenses created now, by day.
        public let expenseIDs: [String]
        /// Days whose expense was already stored (a run interrupted after writing; an id taken).
        public let alreadyStored: Int
        /// The rule's next due day now; nil when it has ended.
        public let nextDue: LocalDay?
        /// Whether days up to the as-of day are still due (more than `maxDaysPerRun` were).
        public let moreDue: Bool
    }

    /// Runs the user's rules (or only `ruleID`) through `asOf`, inclusive.
    public static func run(
        userID: String, asOf: LocalDay, ruleID: Int64? = nil, store: some RecurringStore
    ) async throws -> [Created] {
        let user = Identity.normalized(userID)
        var done: [Created] = []
        for rule in try await store.recurringRules(userID: user) where ruleID == nil || rule.id == ruleID {
            // A run that lost the race to another reads the rule again and goes on from there.
            var current: RecurringRule? = rule
            for _ in 0..<3 {
                guard let r = current else { break }
                if let created = try await runOne(r, asOf: asOf, store: store) {
                    if !created.expenseIDs.isEmpty || created.alreadyStored > 0 { done.append(created) }
                    break
                }
                current = try await store.recurringRule(userID: user, id: rule.id)
            }
        }
        return done
    }

    /// Runs every user's due rules through their own today (`users settings --timezone`, else
    /// UTC): the service's scheduler. - Returns: the expenses created, by user.
    public static func runDue(
        at now: Date = Date(), store: some RecurringStore & UserSettingsStore
    ) async throws -> [(user: String, created: [Created])] {
        let utc = TimeZone(identifier: "UTC")!
        // No zone is more than a day ahead of UTC: the users whose rules are due by tomorrow
        // (UTC) include everyone whose rule is due today where they are.
        let bound = LocalDay.day(of: now, in: utc).adding(days: 1)
        var done: [(user: String, created: [Created])] = []
        for user in try await store.usersWithRecurringDue(onOrBefore: bound) {
            let today = LocalDay.day(of: now, in: try await store.timeZone(of: user, else: utc))
            let created = try await run(userID: user, asOf: today, store: store)
            if !created.isEmpty { done.append((user, created)) }
        }
        return done
    }

    /// The days of `rule` due through `asOf` (at most `maxDaysPerRun`), and the day after them.
    public static func dueDays(_ rule: RecurringRule, asOf: LocalDay) -> (days: [LocalDay], next: LocalDay?) {
        guard let first = rule.nextDue, first <= asOf else { return ([], rule.nextDue) }
        let f = rule.fields
        let last = min(asOf, f.until ?? asOf)
        var days: [LocalDay] = []
        var k = f.schedule.firstIndex(onOrAfter: first)
        while days.count < maxDaysPerRun {
            let day = f.schedule.occurrence(k)
            if day > last { break }
            days.append(day)
            k += 1
        }
        return (days, f.firstDue(onOrAfter: f.schedule.occurrence(k)))
    }

    /// nil when another run moved the rule first.
    static func runOne(_ rule: RecurringRule, asOf: LocalDay, store: some RecurringStore) async throws -> Created? {
        let (days, next) = dueDays(rule, asOf: asOf)
        guard let expected = rule.nextDue, !days.isEmpty else {
            return Created(rule: rule.id, expenseIDs: [], alreadyStored: 0, nextDue: rule.nextDue, moreDue: false)
        }
        let expenses = days.map { rule.fields.expense(id: rule.expenseID(on: $0), userID: rule.userID, on: $0) }
        guard let outcomes = try await store.createOccurrences(
            userID: rule.userID, rule: rule.id, expectedNextDue: expected, expenses: expenses, nextDue: next)
        else { return nil }
        var created: [String] = []
        for (e, outcome) in zip(expenses, outcomes) where outcome == .inserted { created.append(e.id) }
        return Created(
            rule: rule.id, expenseIDs: created, alreadyStored: expenses.count - created.count, nextDue: next,
            moreDue: next.map { $0 <= asOf } ?? false)
    }

    /// Whether an outcome of `createOccurrences` may stand: inserted, or the day's id already
    /// stored (as it was, or edited by the user since). Anything else is refused by the store,
    /// which then writes nothing.
    public static func accepts(_ outcome: RowOutcome, id: String) -> Bool {
        switch outcome {
        case .inserted, .unchanged, .updated, .duplicate: return true
        case .rejected(let r): return r == .changedContent(id: id)
        }
    }
}
