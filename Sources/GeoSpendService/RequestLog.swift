import Hummingbird
import Logging

/// One log line per request: method, path, status and milliseconds. Never the query, which
/// holds where a person stands (`near?lat=…&lon=…`) and what they search for, and never a
/// header (the token). The path alone can name an expense id; that is the user's own.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        func log(_ status: HTTPResponse.Status) {
            let elapsed = ContinuousClock.now - start
            let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            context.logger.info(
                "request",
                metadata: ["method": "\(request.method)", "path": "\(Self.visiblePath(request.uri.path))", "status": "\(status.code)",
                           "ms": "\(Int(ms.rounded()))"])
        }
        do {
            let response = try await next(request, context)
            log(response.status)
            return response
        } catch let error as HTTPResponseError {
            log(error.status)
            throw error
        } catch {
            log(.internalServerError)
            throw error
        }
    }

    /// The path with control characters shown as `?`: a client cannot write lines into the log.
    static func visiblePath(_ path: String) -> String {
        String(String.UnicodeScalarView(path.unicodeScalars.prefix(512).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }
}
