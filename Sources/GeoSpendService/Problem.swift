import GeoSpend
import Hummingbird
import Logging

/// An RFC 9457 problem (`application/problem+json`): every 4xx and 5xx the service sends is one.
/// `detail` is the message the CLI would print for the same mistake, so it says how to fix it.
public struct Problem: Error, HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    public let detail: String
    /// Extra members (RFC 9457 § 3.2), e.g. an import's `line` and `column`.
    public var extensions: [(String, JSONOutput)] = []
    /// Headers that go with it (`WWW-Authenticate` on a 401).
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, _ detail: String) {
        self.status = status
        self.detail = detail
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = JSONOutput.object(
            [("type", .string("about:blank")), ("title", .string(status.reasonPhrase)),
             ("status", .integer(Int64(status.code))), ("detail", .string(detail))] + extensions
        ).serialized()
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static let unauthorized: Problem = {
        var p = Problem(.unauthorized, "send a token as `Authorization: Bearer <token>`; `geospend tokens create --user U` makes one")
        p.headers[.wwwAuthenticate] = "Bearer"
        return p
    }()
}

/// Turns whatever a route throws into a problem: the core's input errors are 400 (bad input is
/// never a 5xx), Hummingbird's own (no such route, a body too large) keep their status, and
/// anything else is a 500 whose detail says no more than that (the log has the error).
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            throw problem
        } catch let error as HTTPError {
            throw Problem(error.status, error.body ?? Self.hint(error.status))
        } catch let error as HTTPResponseError {
            throw Problem(error.status, Self.hint(error.status))  // e.g. a body over the limit: 413
        } catch let error as UsageError {
            throw Problem(.badRequest, error.message)
        } catch let error as ValueError {
            throw Problem(.badRequest, error.description)
        } catch let error as EditError {
            throw Problem(.badRequest, error.description)
        } catch let error as ExportError {
            throw Problem(.badRequest, error.description)
        } catch {
            context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            throw Problem(.internalServerError, "the service could not answer; its log says why")
        }
    }

    static func hint(_ status: HTTPResponse.Status) -> String {
        switch status {
        case .notFound: return "no such resource; /openapi.json lists the service's paths"
        case .contentTooLarge: return "the request body is larger than the service takes (64 MiB): split the file"
        case .methodNotAllowed: return "this path does not take this method; /openapi.json lists what it takes"
        default: return status.reasonPhrase
        }
    }
}
