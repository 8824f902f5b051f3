import Foundation
import PostgresNIO

/// A `postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME[?sslmode=disable|require]` address, as
/// libpq writes them (`postgres://` too). The password is never printed: `redacted` is what
/// errors and logs show.
public struct PostGISAddress: Sendable, CustomStringConvertible {
    public let host: String
    public let port: Int
    public let user: String
    let password: String?
    public let database: String
    let requireTLS: Bool

    /// Whether `text` is meant as a PostgreSQL address rather than a file path.
    public static func looksLikeOne(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    public init(_ text: String) throws {
        guard Self.looksLikeOne(text), let url = URLComponents(string: text) else {
            throw PostGISError.badURL(Self.redact(text), reason: "it does not parse as a URL")
        }
        guard let host = url.host, !host.isEmpty else { throw PostGISError.badURL(Self.redact(text), reason: "no host") }
        guard let user = url.user, !user.isEmpty else { throw PostGISError.badURL(Self.redact(text), reason: "no user") }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw PostGISError.badURL(Self.redact(text), reason: "no database name after the host")
        }
        var requireTLS = false
        for item in url.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("sslmode", "disable"?), ("sslmode", "allow"?), ("sslmode", "prefer"?): requireTLS = false
            case ("sslmode", "require"?), ("sslmode", "verify-ca"?), ("sslmode", "verify-full"?): requireTLS = true
            default:
                throw PostGISError.badURL(Self.redact(text), reason: "unknown option \(item.name)=\(item.value ?? "") (only sslmode is understood)")
            }
        }
        self.host = host
        self.port = url.port ?? 5432
        self.user = user.removingPercentEncoding ?? user
        self.password = url.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        self.requireTLS = requireTLS
    }

    /// The same server, another database (tests create one per store).
    public func with(database: String) -> PostGISAddress {
        PostGISAddress(host: host, port: port, user: user, password: password, database: database, requireTLS: requireTLS)
    }

    private init(host: String, port: Int, user: String, password: String?, database: String, requireTLS: Bool) {
        (self.host, self.port, self.user, self.password, self.database, self.requireTLS) = (host, port, user, password, database, requireTLS)
    }

    public var description: String { "postgresql://\(user)@\(host):\(port)/\(database)" }

    var configuration: PostgresConnection.Configuration {
        get throws {
            let tls: PostgresConnection.Configuration.TLS =
                requireTLS ? .require(try NIOSSLContext(configuration: .makeClientConfiguration())) : .disable
            var configuration = PostgresConnection.Configuration(
                host: host, port: port, username: user, password: password, database: database, tls: tls)
            // The server checks each second whether the client is still there while a statement
            // runs (PostgreSQL 14+): a client that closed its connection without cancelling (a
            // killed process) leaves no statement running to its end. A cancelled scope cancels
            // its statement itself (`PostGISStore.cancelStatement`).
            //
            // Generic plans for the statements a connection keeps (`PreparedStatements`): on the
            // partitioned `expenses` table PostgreSQL's default kept making a custom plan for
            // every run, since only a custom plan prunes partitions while planning; the radius
            // query of one user planned 0.37 ms to run 0.12 ms, where its generic plan prunes
            // at run time and plans 0.04 ms (docs/MEASUREMENTS.md § Generic plans and an
            // unawaited COMMIT). Unprepared statements are planned for their values as before.
            //
            // No parallel workers: a query over the eight partitions of 1M expenses summed to a
            // cost that started two, and the radius query of all users took 10.3 ms for 87 rows
            // where it takes 2.4 ms without them (docs/MEASUREMENTS.md § Parallel workers). A
            // request's work stays on its own backend.
            configuration.options.additionalStartupParameters = [
                ("client_connection_check_interval", "1000"), ("plan_cache_mode", "force_generic_plan"),
                ("max_parallel_workers_per_gather", "0"),
            ]
            return configuration
        }
    }

    private static func redact(_ text: String) -> String {
        guard var url = URLComponents(string: text), url.password != nil else { return text }
        url.password = "***"
        return url.string ?? text
    }
}
