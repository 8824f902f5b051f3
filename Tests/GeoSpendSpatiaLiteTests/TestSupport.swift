import Foundation
import GeoSpendTestSupport
import GRDB
import GeoSpend
import GeoSpendSpatiaLite

/// A fresh directory per test, removed at deinit; databases and input files live in it.
final class Scratch {
    let directory: URL

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-test-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Writes `contents` to a file and returns its path.
    func file(_ name: String, _ contents: String) -> String { file(name, bytes: Array(contents.utf8)) }

    func file(_ name: String, bytes: [UInt8]) -> String {
        let p = path(name)
        _ = FileManager.default.createFile(atPath: p, contents: Data(bytes))
        return p
    }

    func store(_ name: String = "test.sqlite") throws -> SpatiaLiteStore { try SpatiaLiteStore(path: path(name)) }
}

/// Makes each of `users` a user of `store` (a user is whoever has data): one expense, "first",
/// of 1.00 EUR on 2025-01-01. The contract suites start from this.
func addUsers(_ users: [String], to store: some ExpenseEditing) async throws {
    let eur = try Currency(code: "EUR")
    for user in users {
        _ = try await store.addExpense(
            Expense(id: "first", userID: user, amount: Money(minorUnits: 100, currency: eur), occurredAt: try Timestamp(parsing: "2025-01-01")),
            remindAt: nil)
    }
}

enum Repo {
    static let root = Repository.root
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}

extension SpatiaLiteStore {
    /// The first column of the first row of a query, for assertions.
    func scalar<T: DatabaseValueConvertible>(_ sql: String, as type: T.Type = Int.self) throws -> T? {
        try readDatabase { db in try T.fetchOne(db, sql: sql) }
    }

    func column<T: DatabaseValueConvertible>(_ sql: String, as type: T.Type = String.self) throws -> [T] {
        try readDatabase { db in try T.fetchAll(db, sql: sql) }
    }
}
