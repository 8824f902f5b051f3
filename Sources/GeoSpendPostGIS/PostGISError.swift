import PostgresNIO

/// What can go wrong between GeoSpend and a PostgreSQL server, in words a user can act on.
public enum PostGISError: Error, CustomStringConvertible, Sendable {
    /// `--db` looked like a PostgreSQL address but is not one GeoSpend can use.
    case badURL(String, reason: String)
    /// The server refused or could not be reached.
    case cannotConnect(url: String, reason: String)
    /// The server answered a statement with an error.
    case server(message: String, detail: String?, hint: String?)
    /// The database lacks PostGIS and this user may not create it.
    case noPostGIS(reason: String)
    /// The connection closed under a statement: the server stopped or crashed, or the network
    /// failed. The statement's transaction is rolled back by the server.
    case connectionLost
    /// A feature of the file store that the PostgreSQL store does not have yet.
    case unsupported(String)
    /// A read replica lacks GeoSpend's tables, or has an older or newer schema than this GeoSpend.
    case replicaSchema(url: String, reason: String)
    /// A write was asked of a read replica.
    case replicaIsReadOnly(url: String)

    public var description: String {
        switch self {
        case .badURL(let url, let reason):
            return "\(url) is not a usable PostgreSQL address: \(reason) (expected postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME)"
        case .cannotConnect(let url, let reason):
            return "cannot connect to \(url): \(reason); is the server running and does the database exist?"
        case .server(let message, let detail, let hint):
            return ["PostgreSQL: \(message)", detail, hint.map { "hint: \($0)" }].compactMap { $0 }.joined(separator: "; ")
        case .noPostGIS(let reason):
            return "the database has no PostGIS and GeoSpend may not add it (\(reason)); ask its owner to run CREATE EXTENSION postgis"
        case .unsupported(let what):
            return "\(what) is not available on PostgreSQL yet; use a SpatiaLite file (--db FILE) for it"
        case .connectionLost:
            return "the connection to the PostgreSQL server closed during the command (did the server stop?); nothing of its transaction was kept"
        case .replicaSchema(let url, let reason):
            return "the read replica \(url) \(reason)"
        case .replicaIsReadOnly(let url):
            return "\(url) is a read replica: writes go to the primary (--db)"
        }
    }

    /// postgres-nio keeps a server's message out of `PSQLError.description` (it may hold data);
    /// GeoSpend shows it, as SQLite's are shown: the user is the one who sent that data.
    static func wrap(_ error: any Error) -> any Error {
        guard let e = error as? PSQLError else { return error }
        if let info = e.serverInfo, let message = info[.message] {
            return PostGISError.server(message: message, detail: info[.detail], hint: info[.hint])
        }
        return PostGISError.server(message: "\(e.code)", detail: nil, hint: nil)
    }
}
