import Foundation
import Logging
import PostgresNIO

/// postgres-nio on its own, without a store's scope around it (`pg-overhead`'s baseline): one
/// connection, each statement awaited from a task as `blocking` starts it. What a GeoSpend read
/// scope costs beyond this is the scope's; what this costs beyond libpq is the driver's.
enum DriverAlone {
    static func run(url: String, here: (lat: Double, lon: Double), time: (String, () throws -> Int) throws -> Void) throws {
        guard let parts = URLComponents(string: url), let host = parts.host, let role = parts.user else { usage() }
        let database = String(parts.path.dropFirst())
        let configuration = PostgresNIO.PostgresConnection.Configuration(
            host: host, port: parts.port ?? 5432, username: role, password: parts.password, database: database, tls: .disable)
        let logger = Logger(label: "driver-alone")
        let connection = try blocking { try await PostgresNIO.PostgresConnection.connect(configuration: configuration, id: 1, logger: logger) }
        try time("postgres-nio alone, SELECT 1") {
            try blocking { try await connection.query("SELECT 1", logger: logger).collect().count }
        }
        let (lat, lon) = here
        try time("postgres-nio alone, nearest 15 stores") {
            try blocking {
                try await connection.query("""
                    SELECT s.id, s.name, s.kind, s.brand, s.street, s.postcode, s.city, s.country, s.lat, s.lon, s.source_id,
                           s.geog <-> ST_SetSRID(ST_MakePoint(\(lon), \(lat)), 4326)::geography
                    FROM stores AS s ORDER BY s.geog <-> ST_SetSRID(ST_MakePoint(\(lon), \(lat)), 4326)::geography LIMIT 15
                    """, logger: logger).collect().count
            }
        }
        try blocking { try await connection.close() }
    }
}
