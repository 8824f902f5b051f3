import Foundation
import Logging
import PostgresNIO

/// A scope's `BEGIN`, held back until its first statement and sent in that statement's task
/// (`waitFor`): one hop to the event loop and back instead of two, and a scope that runs no
/// statement begins and ends nothing. Every statement of a scope's body goes through `waitFor`,
/// so none can run before its transaction has begun (docs/MEASUREMENTS.md § Prepared statements
/// on PostgreSQL).
final class DeferredBegin: @unchecked Sendable {  // state behind `lock`
    static let shared = DeferredBegin()
    private let lock = NSLock()
    private var waiting: [ObjectIdentifier: (sql: String, logger: Logger)] = [:]

    /// Holds `sql` (`BEGIN …`, with what must follow it at once) for `connection`'s next statement.
    func hold(_ sql: String, logger: Logger, on connection: PostgresConnection) {
        lock.withLock { waiting[ObjectIdentifier(connection)] = (sql, logger) }
    }

    /// The held text, handed out once: to the first statement, or back to the scope when no
    /// statement took it (nil: it was sent).
    func take(_ connection: PostgresConnection) -> (sql: String, logger: Logger)? {
        lock.withLock { waiting.removeValue(forKey: ObjectIdentifier(connection)) }
    }
}

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
