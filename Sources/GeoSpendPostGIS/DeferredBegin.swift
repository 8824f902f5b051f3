import Foundation
import Logging
import PostgresNIO

/// A scope's `BEGIN`, held back until its first statement and sent in that statement's task
/// (`waitFor`): one hop to the event loop and back instead of two, and a scope that runs no
/// statement begins and ends nothing. Every statement of a scope's body goes through `waitFor`,
/// so none can run before its transaction has begun (docs/MEASUREMENTS.md § Prepared statements
/// on PostgreSQL).
///
/// A quick read (`PostGISStore.quickRead`) holds no `BEGIN` but `alone`: its first statement
/// runs on its own, outside any transaction — one statement is its own snapshot — and a second
/// one is refused (`NeedsTransaction`), after which the scope runs the body again in a read
/// transaction.
final class DeferredBegin: @unchecked Sendable {  // state behind `lock`
    static let shared = DeferredBegin()
    private let lock = NSLock()
    private var waiting: [ObjectIdentifier: Opening] = [:]

    /// What a scope has sent of its opening so far.
    enum Opening {
        /// `BEGIN …` (with what must follow it at once), not sent yet.
        case begin(sql: String, logger: Logger)
        /// A quick read before its first statement.
        case alone
        /// A quick read whose one statement was taken.
        case aloneTaken
        /// A quick read that asked for a second statement: it must run again in a transaction.
        case needsTransaction
    }

    /// What the next statement on a connection must do first.
    enum Step {
        /// Send this `BEGIN` first.
        case begin(sql: String, logger: Logger)
        /// Run without a transaction (a quick read's one statement).
        case alone
        /// Do not run: throw `NeedsTransaction`.
        case refuse
    }

    /// Holds `sql` (`BEGIN …`, with what must follow it at once) for `connection`'s next statement.
    func hold(_ sql: String, logger: Logger, on connection: PostgresConnection) {
        lock.withLock { waiting[ObjectIdentifier(connection)] = .begin(sql: sql, logger: logger) }
    }

    /// Lets `connection`'s next statement run on its own, and refuses the one after it.
    func holdAlone(on connection: PostgresConnection) {
        lock.withLock { waiting[ObjectIdentifier(connection)] = .alone }
    }

    /// What the next statement must do first; nil: nothing (its transaction has begun).
    func take(_ connection: PostgresConnection) -> Step? {
        lock.withLock {
            let key = ObjectIdentifier(connection)
            switch waiting[key] {
            case nil: return nil
            case .begin(let sql, let logger):
                waiting[key] = nil
                return .begin(sql: sql, logger: logger)
            case .alone:
                waiting[key] = .aloneTaken
                return .alone
            case .aloneTaken, .needsTransaction:
                waiting[key] = .needsTransaction
                return .refuse
            }
        }
    }

    /// The scope's opening as its body left it, forgotten here (nil: its transaction has begun).
    func end(_ connection: PostgresConnection) -> Opening? {
        lock.withLock { waiting.removeValue(forKey: ObjectIdentifier(connection)) }
    }
}

/// A quick read's second statement, refused: the scope runs its body again in a transaction.
struct NeedsTransaction: Error {}

extension PostgresConnection {
    /// Runs statements without results (BEGIN, COMMIT, DDL), one after another, in the calling
    /// task. postgres-nio speaks only the extended protocol, which takes one statement per
    /// message, so the text is cut where a line ends in `;` (no statement here has one inside).
    func run(statements sql: String, logger: Logger) async throws {
        for statement in sql.components(separatedBy: ";\n") {
            let text = statement.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: ";")))
            if text.isEmpty || text.hasPrefix("--") && !text.contains("\n") { continue }
            _ = try await query(PostgresQuery(unsafeSQL: text), logger: logger)
        }
    }
}
