import GeoSpend
import Hummingbird

/// `/api/v1/receipts`: a receipt's text (UTF-8, the body) as `geospend receipts parse|import`
/// read it. POST `/parse[?currency=EUR]` stores nothing; POST `/import?store=ID&at=WHEN
/// [&currency=EUR&category=C&allow-mismatch=true&name=r.txt]` stores the token user's expense
/// and price records in one transaction (201), answering with `receipts import --format json`.
struct ReceiptRoutes {
    let store: any ServiceStore

    func add(to group: RouterGroup<ServiceContext>) {
        group.post("receipts/parse", use: parse)
        group.post("receipts/import", use: importReceipt)
    }

    @Sendable func parse(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let code = try Currency(code: q.string("currency") ?? "EUR")
        return JSONResponse.make(ReceiptImport.json(ReceiptText.parse(try await Self.text(request), currency: code)))
    }

    @Sendable func importReceipt(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try await context.checkedUser(in: store)
        let name = q.string("name") ?? "body"
        let checked = try ReceiptImport.check(
            text: try await Self.text(request), name: name, at: try q.required("at"), currency: q.string("currency") ?? "EUR",
            allowMismatch: try q.flag("allow-mismatch"))
        let stored = try await ReceiptImport.store(checked, name: name, user: user, storeID: try q.required("store"), category: q.string("category"), db: store)
        var response = JSONResponse.make(ReceiptImport.json(stored))
        response.status = .created
        return response
    }

    /// The largest receipt text taken: about 2,000 lines, far more than a till prints, and small
    /// enough that parsing it costs milliseconds of one core (a 1 MiB text of 9,300 lines let two
    /// clients slow every other user to a p99 of 0.94 s; docs/RELIABILITY.md § 9.9).
    static let maxBytes = 64 << 10

    /// The body as UTF-8 text (a byte-order mark dropped), as `receipts` reads a file.
    static func text(_ request: Request) async throws -> String {
        var collected = ByteBuffer()
        for try await chunk in request.body {
            guard collected.readableBytes + chunk.readableBytes <= maxBytes else {
                throw Problem(.contentTooLarge, "a receipt text is at most \(maxBytes >> 10) KiB; this is not one receipt, send each on its own")
            }
            collected.writeImmutableBuffer(chunk)
        }
        var bytes = Array(buffer: collected)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Problem(.badRequest, "the body is not UTF-8 text; send the OCR output as UTF-8 (most phones do)")
        }
        return text
    }
}
