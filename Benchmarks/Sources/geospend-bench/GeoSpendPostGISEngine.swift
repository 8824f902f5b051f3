import Foundation
import GeoSpend
import GeoSpendPostGIS

/// GeoSpend through its library API on its PostgreSQL backend (`PostGISStore`), in-process, on
/// the same server as the PostGIS engine (its own database, filled by `geospend import --db
/// postgresql://…`). Beside PostGISEngine it shows what the backend costs over hand-written SQL:
/// the exact geodesic refinement, GeoSpend's rows, postgres-nio instead of libpq.
struct GeoSpendPostGISEngine: Engine {
    let name = EngineName.geoSpendPostGIS
    let store: PostGISStore

    init(url: String) throws {
        store = try blocking { try await PostGISStore(PostGISAddress(url)) }
    }

    func radius(_ center: Coordinate, meters: Double, user: String?) throws -> [Found] {
        try blocking { [store] in
            try await store.read { reader in
                try reader.expenses(within: .meters(meters), of: center, filter: ExpenseFilter(userID: user))
                    .map { Found(id: $0.expense.id, meters: $0.distanceMeters) }
            }
        }
    }

    func nearest(_ center: Coordinate, k: Int) throws -> [Found] {
        try blocking { [store] in
            try await store.read { reader in
                try reader.nearestStores(to: center, limit: k, maxDistance: nil, kind: nil).map { Found(id: $0.store.id, meters: $0.distanceMeters) }
            }
        }
    }

    func insights(user: String) throws -> [StoreTotal] {
        try blocking { [store] in
            try await store.read { reader in
                try LocationInsights.compute(InsightsRequest(userID: user, grouping: .store), reader: reader).places.map {
                    StoreTotal(store: $0.place.id, currency: $0.currency.code, count: $0.count, totalMinor: $0.total.minorUnits)
                }
            }
        }
    }

    /// The postgresql:// URL of database `name` on the server of a libpq key=value `conninfo`
    /// (as scripts/postgis.sh prints it: host, port, user, dbname).
    static func url(conninfo: String, database name: String) -> String {
        var fields: [String: String] = [:]
        for pair in conninfo.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return "postgresql://\(fields["user"] ?? "postgres")@\(fields["host"] ?? "127.0.0.1"):\(fields["port"] ?? "5432")/\(name)"
    }
}

/// Waits on this (non-cooperative) thread for async work: the bench's engines are synchronous.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>(), done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// The result handed from the task to the waiting thread; the semaphore orders the two accesses.
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
