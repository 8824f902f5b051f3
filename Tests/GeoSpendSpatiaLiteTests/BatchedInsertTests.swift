import GRDB
import Testing

@testable import GeoSpendSpatiaLite

/// `BatchedInsert` puts every row in, in order, whole statements and the partial last one alike,
/// texts byte for byte (long ones fill its 4 KiB text arena several times within a statement);
/// a row that breaks a constraint fails the insert.
@Suite struct BatchedInsertTests {
    static func inserted(_ count: Int) throws -> [String] {
        let queue = try DatabaseQueue()
        return try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (n INTEGER PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID")
            var rows = BatchedInsert(db, into: "t", columns: ["n", "name"])
            for n in 0..<count {
                try rows.add { row in row.append(.integer(Int64(n))); row.append(.text(Self.name(n))) }
            }
            try rows.finish()
            return try String.fetchAll(db, sql: "SELECT n || ':' || name FROM t ORDER BY n")
        }
    }

    /// Every other name 300 bytes long: a hundred rows hold ~15 KiB of text, the arena starts at 4 KiB.
    static func name(_ n: Int) -> String { n % 2 == 0 ? "ñ\(n)" + String(repeating: "é", count: 150) : "ñ\(n)" }

    @Test(arguments: [0, 1, 99, 100, 101, 250])
    func everyRowGoesIn(count: Int) throws {
        #expect(try Self.inserted(count) == (0..<count).map { "\($0):\(Self.name($0))" })
    }

    @Test func aConflictingRowFailsTheInsert() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (n INTEGER PRIMARY KEY) WITHOUT ROWID")
            var rows = BatchedInsert(db, into: "t", columns: ["n"])
            try rows.add { $0.append(.integer(7)) }
            try rows.add { $0.append(.integer(7)) }
            #expect(throws: DatabaseError.self) { try rows.finish() }
        }
    }
}
