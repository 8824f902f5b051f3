import Foundation
import GRDB
import GeoSpend
@testable import GeoSpendSpatiaLite
import Testing

/// Migration v6 (periods) on a file an older GeoSpend wrote, and the link's life in SQL terms.
/// The rules themselves are tested through the binary (Tests/GeoSpendCLITests/PeriodTests.swift).
@Suite struct PeriodStorageTests {
    /// What `ALTER TABLE … ADD COLUMN` appends to the `expenses` table's text (SQLite keeps the
    /// column definition as written, after a comma, before the closing parenthesis).
    static let addedColumn = ", period_id BIGINT REFERENCES periods(pk) ON DELETE SET NULL"

    /// A v4 file (every migration before periods) with one expense is migrated on open: the
    /// existing expense has no period, GDAL reads the new link column as Integer64, doctor's
    /// checks pass; a period then links and, deleted, unlinks it.
    @Test func aVersion4FileGainsPeriodsAndItsExpensesHaveNone() async throws {
        let scratch = Scratch()
        let path = scratch.path("v4.sqlite")
        try OlderFile.make(at: path, before: "v5") { db in try db.execute(sql: Integer64Tests.rows) }

        let store = try SpatiaLiteStore(path: path)
        #expect(try store.scalar("SELECT count(*) FROM expenses WHERE period_id IS NULL") == 1, "the existing expense has no period")
        #expect(try store.readHere { try $0.periods(userID: "ann") } == [])
        #expect(try store.scalar("SELECT sql FROM sqlite_master WHERE name = 'expenses'", as: String.self)?.contains(Self.addedColumn) == true)
        #expect(try Integer64Tests.fieldTypes(path, "expenses")["period_id"] == "Integer64")
        let health = try store.checkHealth()
        #expect(health.isHealthy, "\(health.checks.filter { !$0.ok })")
        #expect(health.checks.first { $0.name == "secondary indexes" }?.detail == "\(Schema.secondaryIndexSQL.count) present")

        let trip = try await store.addPeriod(userID: "ann", PeriodFields(name: "Trip", start: Timestamp(parsing: "2100-01-01"), end: nil))
        #expect(trip.createdAt != nil, "stamped by the store (issue 38)")
        #expect(Period(id: trip.id, userID: trip.userID, name: trip.name, start: trip.start, end: trip.end, expenses: trip.expenses)
            == Period(id: 1, userID: "ann", name: "Trip", start: "2100-01-01", end: nil, expenses: 0))
        #expect(try await store.assign(userID: "ann", period: 1, expenseIDs: ["big"]) == .done(changed: 1, moved: 0))
        #expect(try store.readHere { try $0.spendingPoints(ExpenseFilter(userID: "ann", period: 1)) }.map(\.id) == ["big"])
        #expect(try await store.deletePeriod(userID: "ann", id: 1) == 1)
        #expect(try store.scalar("SELECT count(*) FROM expenses WHERE period_id IS NULL") == 1, "unlinked, kept")
        #expect(try store.readHere { try $0.spendingPoints(ExpenseFilter(userID: "ann", period: 1)) }.isEmpty)
    }
}
