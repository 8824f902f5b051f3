import Foundation
import GeoSpend
@testable import GeoSpendPostGIS
import GeoSpendTestStores
import Logging
import PostgresNIO
import Testing

/// The two edges of `PreparedStatements` that the PostgreSQL suites do not reach on their own,
/// checked against the server's own list of the session's prepared statements
/// (`pg_prepared_statements`).
@Suite struct PreparedStatementsTests {
    /// `SELECT $1::BIGINT + n`: one typed text per `n`.
    static func plus(_ n: Int, _ value: Int64) -> PostGISStatement {
        var binds = PostgresBindings()
        binds.append(value)
        return PostGISStatement(sql: "SELECT $1::BIGINT + \(n)", binds: binds, typed: true)
    }

    static func prepared(_ r: PostGISReader) throws -> Int64 {
        try r.rows(PostgresQuery(unsafeSQL: "SELECT count(*) FROM pg_prepared_statements"))[0].decode(Int64.self)
    }

    /// A statement first prepared inside a transaction already aborted fails; postgres-nio
    /// would keep that name failed for the connection's life, so the name is retired and the
    /// same text prepares and runs under a new one in the next scope on the same connection.
    @Test func aFailedPreparationIsRetired() async throws {
        guard PostGISTestServer.address != nil else {
            #expect(!PostGISTestServer.isRequired, "GEOSPEND_TEST_POSTGRES is not set")
            return
        }
        let store = try await PostGISTestServer.freshStore()
        let (first, divisionFailed, preparationFailed) = try await store.scope(.snapshot) { connection in
            let r = store.reader(on: connection)
            let division = Result { try r.rows(PostgresQuery(unsafeSQL: "SELECT 1 / 0")) }
            let preparation = Result { try r.rows(Self.plus(1, 41)) }  // the transaction is aborted
            return (connection.id, division.failed, preparation.failed)
        }
        #expect(divisionFailed && preparationFailed)
        let (second, answer, count) = try await store.scope(.snapshot) { connection in
            let r = store.reader(on: connection)
            return (connection.id, try r.rows(Self.plus(1, 41))[0].decode(Int64.self), try Self.prepared(r))
        }
        #expect(first == second, "the same connection both times")
        #expect(answer == 42)
        #expect(count == 1)
        await store.close()
    }

    /// Past `PreparedStatements.limit` names, statements run unprepared and still answer.
    @Test func pastTheLimitStatementsRunUnprepared() async throws {
        guard PostGISTestServer.address != nil else {
            #expect(!PostGISTestServer.isRequired, "GEOSPEND_TEST_POSTGRES is not set")
            return
        }
        let store = try await PostGISTestServer.freshStore()
        let (answers, count) = try await store.scope(.snapshot) { connection in
            let r = store.reader(on: connection)
            let answers = try (0...PreparedStatements.limit).map { try r.rows(Self.plus($0, 1))[0].decode(Int64.self) }
            return (answers, try Self.prepared(r))
        }
        let expected: [Int64] = (0...PreparedStatements.limit).map { Int64($0) + 1 }
        #expect(answers == expected)
        #expect(count == Int64(PreparedStatements.limit))
        await store.close()
    }
}

extension Result {
    var failed: Bool { if case .failure = self { true } else { false } }
}
