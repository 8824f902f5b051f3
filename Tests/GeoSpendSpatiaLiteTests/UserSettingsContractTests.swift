import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// `UserSettingsStore` and the retention it drives (`PositionRetention`) promise the same on
/// the file, the memory store and PostgreSQL (where `$GEOSPEND_TEST_POSTGRES` names a server): settings are
/// per user and read back as set, a retention deletes exactly the positions and visits older
/// than it (of that user alone), and `users export` and `users delete` cover the row.
@Suite struct UserSettingsContractTests {
    typealias Kind = EditingStoreKind
    typealias SettingsDatabase = ExpenseStore & PositionStore & UserSettingsStore & UserDataStore

    /// A store with ann's and bob's `history` (ann's in Helsinki, bob's in Sydney).
    static func loaded(_ kind: Kind, _ scratch: Scratch) async throws -> any SettingsDatabase {
        let store: any SettingsDatabase = try await kind.make(in: scratch)
        _ = try await store.addLocationHistory(history(lat: 60.17), userID: "ann")
        _ = try await store.addLocationHistory(history(lat: -33.87), userID: "bob")
        return store
    }

    static let t0 = PositionStoreContractTests.t0
    static let day: Int64 = 86_400_000

    /// Fixes 40, 10 and 2 days before `t0` and at `t0`; a visit starting 40 days and one 2 days before.
    static func history(lat: Double) -> LocationHistory {
        func fix(_ days: Int64) -> Position {
            Position(epochMilliseconds: t0 - days * day, coordinate: Coordinate(uncheckedLatitude: lat, longitude: 24.94), accuracyMeters: 10, source: .gpx)
        }
        func visit(_ days: Int64) -> Visit {
            Visit(
                startEpochMilliseconds: t0 - days * day, endEpochMilliseconds: t0 - days * day + 600_000,
                centre: Coordinate(uncheckedLatitude: lat, longitude: 24.94), radiusMeters: 20, placeName: "Cafe", placeID: nil, probability: 0.5,
                source: .googleSemantic)
        }
        return LocationHistory(positions: [fix(40), fix(10), fix(2), fix(0)], visits: [visit(40), visit(2)])
    }

    /// Days before `t0` of the user's fixes and visits.
    static func ages(_ store: any SettingsDatabase, _ user: String) async throws -> (positions: [Int64], visits: [Int64]) {
        let h = try await store.locationHistory(userID: user, from: nil, to: nil)
        return (h.positions.map { (t0 - $0.epochMilliseconds) / day }, h.visits.map { (t0 - $0.startEpochMilliseconds) / day })
    }

    @Test(arguments: Kind.allCases)
    func settingsAreEachUsersAndReadBackAsSet(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let helsinki = try UserSettings(timeZone: "Europe/Helsinki", positionRetentionDays: 365)
        #expect(try await store.userSettings(userID: "carol") == nil, "no such user")
        #expect(try await store.setUserSettings(helsinki, userID: "carol") == false)
        #expect(try await store.users().map(\.id) == ["ann", "bob"], "nor is one made")
        #expect(try await store.userSettings(userID: "ann") == UserSettings(), "nothing chosen: every default")
        #expect(try await store.setUserSettings(helsinki, userID: "ann"))
        #expect(try await store.userSettings(userID: "ann") == helsinki)
        #expect(try await store.userSettings(userID: "ann")?.zone == TimeZone(identifier: "Europe/Helsinki"))
        #expect(try await store.userSettings(userID: "bob") == UserSettings(), "ann's are not bob's")
        #expect(try await store.timeZone(of: "bob", else: TimeZone(identifier: "Asia/Tokyo")!).identifier == "Asia/Tokyo", "no setting: the fallback")
        #expect(try await store.timeZone(of: "ann", else: TimeZone(identifier: "Asia/Tokyo")!).identifier == "Europe/Helsinki")
        #expect(try UserSettings(timeZone: "UTC", positionRetentionDays: nil).timeZone == "UTC", "kept as given (Foundation says GMT)")
        let tokyo = try UserSettings(timeZone: "Asia/Tokyo", positionRetentionDays: nil)
        #expect(try await store.setUserSettings(tokyo, userID: "bob"))
        #expect(try await store.positionRetentions().map { "\($0.userID) \($0.days)" } == ["ann 365"], "bob keeps his forever")
        #expect(try await store.setUserSettings(try UserSettings(timeZone: nil, positionRetentionDays: 7), userID: "bob"))
        #expect(try await store.positionRetentions().map { "\($0.userID) \($0.days)" } == ["ann 365", "bob 7"])
        #expect(try await store.setUserSettings(UserSettings(), userID: "ann"))
        #expect(try await store.userSettings(userID: "ann") == UserSettings())
        #expect(try await store.positionRetentions().map(\.userID) == ["bob"])
    }

    /// What no setting takes is refused before any store sees it.
    @Test func invalidValuesAreRefusedByName() {
        #expect(throws: UserSettings.Invalid.self) { try UserSettings(timeZone: "Mars/Olympus", positionRetentionDays: nil) }
        #expect(throws: UserSettings.Invalid.self) { try UserSettings(timeZone: "", positionRetentionDays: nil) }
        for days in [0, -1, 36_501, Int.max] {
            do {
                _ = try UserSettings(timeZone: nil, positionRetentionDays: days)
                Issue.record("\(days) days taken")
            } catch {
                #expect(error.setting == "position_retention_days")
            }
        }
        #expect((try? UserSettings(timeZone: nil, positionRetentionDays: 36_500))?.positionRetentionDays == 36_500)
        #expect(PositionRetention.cutoff(days: 36_500, now: 0) == -36_500 * Self.day)
        #expect(PositionRetention.cutoff(days: 1, now: Int64.min + 5) == Int64.min, "no overflow")
    }

    /// A retention of 5 days at `t0` deletes the fixes of 10 and 40 days ago and the visit that
    /// started 40 days ago; the rest stays, and bob (no retention) keeps all of his.
    @Test(arguments: Kind.allCases)
    func retentionDeletesWhatIsOlderAndKeepsTheRest(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        #expect(try await PositionRetention.apply(userID: "ann", in: store, now: Self.t0) == nil, "no retention: nothing goes")
        #expect(try await Self.ages(store, "ann").positions == [40, 10, 2, 0])
        #expect(try await store.setUserSettings(try UserSettings(timeZone: nil, positionRetentionDays: 5), userID: "ann"))
        let pruned = try #require(try await PositionRetention.apply(userID: "ann", in: store, now: Self.t0))
        #expect(pruned.before == Self.t0 - 5 * Self.day && pruned.days == 5)
        #expect(pruned.deleted == PositionDeletion(positions: 2, visits: 1))
        #expect(try await Self.ages(store, "ann") == ([2, 0], [2]))
        #expect(try await Self.ages(store, "bob") == ([40, 10, 2, 0], [40, 2]))
        // Again: nothing more is old enough.
        #expect(try await PositionRetention.apply(userID: "ann", in: store, now: Self.t0)?.deleted == PositionDeletion(positions: 0, visits: 0))
        // Every user's, a day later (prune): ann's 2-day-old fix goes at 1 day; bob keeps his at 30.
        #expect(try await store.setUserSettings(try UserSettings(timeZone: nil, positionRetentionDays: 1), userID: "ann"))
        #expect(try await store.setUserSettings(try UserSettings(timeZone: "Australia/Sydney", positionRetentionDays: 30), userID: "bob"))
        let all = try await PositionRetention.applyAll(in: store, now: Self.t0 + Self.day)
        #expect(all.map { "\($0.userID) \($0.days) \($0.deleted.positions) \($0.deleted.visits)" } == ["ann 1 1 1", "bob 30 1 1"])
        #expect(try await Self.ages(store, "ann") == ([0], []))
        #expect(try await Self.ages(store, "bob") == ([10, 2, 0], [2]))
        #expect(try await PositionRetention.applyAll(userID: "bob", in: store, now: Self.t0 + 25 * Self.day).map(\.deleted.positions) == [1])
        #expect(try await Self.ages(store, "ann") == ([0], []), "bob's alone")
    }

    /// The row is in `users export` (`settings`) and goes with `users delete`; bob's stays.
    @Test(arguments: Kind.allCases)
    func exportAndDeleteCoverTheSettings(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        func settingsLine(_ user: String) async throws -> String? {
            let text = try #require(try await store.withUserData(user) { data in
                let sink = ByteSink()
                _ = try UserExport.write(data, generatedAt: "2026-01-01T00:00:00Z", to: sink)
                return String(decoding: sink.bytes, as: UTF8.self)
            })
            return text.split(separator: "\n").first { $0.hasPrefix("\"settings\":") }.map(String.init)
        }
        #expect(try await settingsLine("ann") == #""settings":{"time_zone":null,"position_retention_days":null},"#)
        #expect(try await store.setUserSettings(try UserSettings(timeZone: "Europe/Helsinki", positionRetentionDays: 365), userID: "ann"))
        #expect(try await store.setUserSettings(try UserSettings(timeZone: "Asia/Tokyo", positionRetentionDays: nil), userID: "bob"))
        #expect(try await settingsLine("ann") == #""settings":{"time_zone":"Europe/Helsinki","position_retention_days":365},"#)
        let deletion = try #require(try await store.deleteUser("ann", rewriteFile: false))
        #expect(deletion.rowsByTable.first { $0.table == "user_settings" }?.rows == 1)
        #expect(try await store.userSettings(userID: "ann") == nil)
        #expect(try await store.positionRetentions().isEmpty, "ann's retention went with her")
        #expect(try await store.userSettings(userID: "bob")?.timeZone == "Asia/Tokyo")
    }
}
