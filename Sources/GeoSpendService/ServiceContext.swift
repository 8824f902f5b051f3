import GeoSpend
import Hummingbird

/// A request's context: Hummingbird's, plus the token it came with (set by `TokenAuth`).
public struct ServiceContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The request's token; every route under /api and /ogc acts as its user.
    public var token: TokenRecord?

    public init(source: Source) {
        coreContext = .init(source: source)
        token = nil
    }

    /// Bodies up to 64 MiB (an import); larger ones get 413.
    public var maxUploadSize: Int { 64 << 20 }

    /// The token's user. Only reached behind `TokenAuth`, which refuses requests without one.
    func user() throws -> String {
        guard let token else { throw Problem.unauthorized }
        return token.userID
    }
}
