/// How one import hands its batches to the write scope's writer (`Importer.run`).
protocol Insertions: SendableMetatype {
    associatedtype Record: Sendable
    /// One outcome per row, in order.
    func insert(_ rows: [HashedRow<Record>]) throws -> [RowOutcome]
    /// The row's id, for the report.
    func id(of row: HashedRow<Record>) -> String
    /// After a batch's outcomes are counted: rows of earlier batches (or of this one) counted as
    /// duplicates whose outcome changed, with the new one.
    func settle(_ rows: [HashedRow<Record>], _ locations: [String], _ outcomes: [RowOutcome]) throws -> [Settled]
}

/// A row whose counted outcome (`.duplicate`) is replaced.
struct Settled {
    let location: String
    let id: String
    let outcome: RowOutcome
}

struct StoreInsertions: Insertions {
    let writer: any ExpenseWriter
    func insert(_ rows: [HashedRow<Store>]) throws -> [RowOutcome] { try writer.insert(rows) }
    func id(of row: HashedRow<Store>) -> String { row.record.id }
    func settle(_ rows: [HashedRow<Store>], _ locations: [String], _ outcomes: [RowOutcome]) throws -> [Settled] { [] }
}

/// Expenses under an `InsertPolicy`. A stored expense taken as a new row's twin
/// (`DuplicateCheck.take`) may later arrive under its own id; the twin is then given back: it
/// is inserted after all (or matched to another stored row), so a file holding two equal
/// coffees under two ids, one of them stored, keeps both whatever their order.
final class ExpenseInsertions: Insertions {
    let writer: any ExpenseWriter
    let policy: InsertPolicy
    /// Rows left out as twins, by the (user, id) of the stored expense they matched.
    private var twins: [[String]: (row: HashedRow<Expense>, location: String)] = [:]

    init(writer: any ExpenseWriter, policy: InsertPolicy) {
        self.writer = writer
        self.policy = policy
    }

    /// The periods of the users whose rows named one, read once per import.
    private var periods: [String: [Period]] = [:]

    /// Rows whose `period` names none of the user's periods are refused (column `period`) before
    /// anything is written; the others are inserted and then assigned to their period, in the
    /// same write scope, whether they were new, unchanged or updated (a re-import with another
    /// period moves the expense, as `periods assign` does). A row left out as a duplicate of a
    /// stored expense assigns nothing.
    func insert(_ rows: [HashedRow<Expense>]) throws -> [RowOutcome] {
        guard rows.contains(where: { $0.record.period != nil }) else { return try writer.insert(rows, policy: policy) }
        var outcomes = [RowOutcome?](repeating: nil, count: rows.count)
        var wanted = [Int64?](repeating: nil, count: rows.count)
        for (i, row) in rows.enumerated() {
            guard let reference = row.record.period else { continue }
            let user = Identity.normalized(row.record.userID)
            if periods[user] == nil { periods[user] = try writer.periods(ofUser: user) }
            switch PeriodReference.resolve(reference, among: periods[user]!, user: user) {
            case .success(let period): wanted[i] = period.id
            case .failure(let error):
                let reason = String(describing: error)
                outcomes[i] = .rejected(RowRejection(column: "period", reason: reason))
            }
        }
        let kept = rows.indices.filter { outcomes[$0] == nil }
        let written = try writer.insert(kept.map { rows[$0] }, policy: policy)
        var links: [PeriodLink] = []
        for (k, i) in kept.enumerated() {
            outcomes[i] = written[k]
            guard let period = wanted[i] else { continue }
            switch written[k] {
            case .inserted, .unchanged, .updated:
                links.append(PeriodLink(userID: Identity.normalized(rows[i].record.userID), expenseID: rows[i].record.id, period: period))
            case .duplicate, .rejected: continue
            }
        }
        try writer.assignPeriods(links)
        return outcomes.map { $0! }
    }

    func id(of row: HashedRow<Expense>) -> String { row.record.id }

    func settle(_ rows: [HashedRow<Expense>], _ locations: [String], _ outcomes: [RowOutcome]) throws -> [Settled] {
        guard let check = policy.duplicates else { return [] }
        var settled: [Settled] = []
        for (i, outcome) in outcomes.enumerated() {
            if case .duplicate(let storedID) = outcome { twins[[rows[i].record.userID, storedID]] = (rows[i], locations[i]) }
        }
        for (i, outcome) in outcomes.enumerated() {
            switch outcome {
            case .inserted, .duplicate: continue
            case .unchanged, .updated, .rejected:
                // The id may be stored: that row is this one's, never another's twin.
                let e = rows[i].record
                check.claim(e)
                guard !twins.isEmpty, let twin = twins.removeValue(forKey: [e.userID, e.id]) else { continue }
                let again = try writer.insert([twin.row], policy: policy)[0]
                if case .duplicate(let other) = again { twins[[e.userID, other]] = twin }
                settled.append(Settled(location: twin.location, id: twin.row.record.id, outcome: again))
            }
        }
        return settled
    }
}
