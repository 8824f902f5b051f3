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

    func insert(_ rows: [HashedRow<Expense>]) throws -> [RowOutcome] { try writer.insert(rows, policy: policy) }

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
