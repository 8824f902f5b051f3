import Foundation
import GeoSpend
import GeoSpendOCR
import Hummingbird
import HTTPTypes

/// `/api/v1/receipts`, as `geospend receipts …` (issue 42 §2), for the token user:
/// - POST `/receipts[?store=ID&at=WHEN&currency=EUR&category=C&allow-mismatch=true&keep-image=true&name=r.jpg]`:
///   the body is a JPEG or PNG photo (read with Tesseract) or the receipt's UTF-8 text, sent
///   as it is or as the one file of a `multipart/form-data` form; 201 with
///   `receipts import --format json`.
/// - GET `/receipts[?after=SEQ&limit=N]`: `receipts list --format json` as `{"receipts", "next"}`.
/// - GET / DELETE `/receipts/{id}`; GET `/receipts/{id}/image`: the kept photo's bytes (the web
///   app's review shows it; 404 when the receipt kept none); POST `/receipts/{id}/correct?line=N&price=P&store=&date=&total=`
///   and `/receipts/{id}/confirm`.
/// - POST `/parse[?currency=EUR]` stores nothing; POST `/import?store=ID&at=WHEN…` (the text
///   body) is the same as POST `/receipts` with a text, kept for older clients.
///
/// A POST `/receipts` holds one of the service's upload slots (`ServiceSettings.uploads`, shared with the
/// file imports) from its first byte to its answer: its body (up to 20 MiB) is in memory that
/// long. A photo also takes one of `scans` (`ServiceSettings.scans`) while it is read, on a thread of its own
/// at the lowest priority, and its reading stops when the request is cancelled or after
/// `scanTime` (the service's time limit): 503 with `Retry-After`, nothing stored.
struct ReceiptRoutes {
    let store: any Backend
    let scans: Slots
    let uploads: Slots
    let scanTime: Duration
    let rewrites: BatchedRewrite

    func add(to group: RouterGroup<ServiceContext>) {
        group.post("receipts/parse", use: parse)
        group.post("receipts/import", use: importReceipt)
        group.post("receipts", use: create)
        group.get("receipts", use: list)
        group.get("receipts/{id}", use: show)
        group.get("receipts/{id}/image", use: image)
        group.delete("receipts/{id}", use: delete)
        group.post("receipts/{id}/correct", use: correct)
        group.post("receipts/{id}/confirm", use: confirm)
    }

    @Sendable func parse(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let code = try Currency(code: q.string("currency") ?? "EUR")
        return JSONResponse.make(ReceiptImport.json(ReceiptText.parse(try await Self.text(request), currency: code)))
    }

    /// The older text-only import, its contract kept: `store` and `at` required, a text whose
    /// items do not add up refused (400) unless `allow-mismatch`; what it stores is POST
    /// `/receipts`'s receipt record.
    @Sendable func importReceipt(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try await context.checkedUser(in: store)
        let (name, storeID, at, text) = (q.string("name") ?? "body", try q.required("store"), try q.required("at"), try await Self.text(request))
        let (currency, allow) = (q.string("currency") ?? "EUR", try q.flag("allow-mismatch"))
        _ = try ReceiptImport.check(text: text, name: name, at: at, currency: currency, allowMismatch: allow)
        let input = ReceiptRecording.Input(
            text: text, name: name, user: user, storeID: storeID, at: at, currency: currency, category: q.string("category"),
            allowMismatch: allow)
        return try await imported(input, q)
    }

    @Sendable func create(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try await context.checkedUser(in: store)
        try uploads.takeOrRefuse()
        defer { uploads.give() }
        var bytes = try await Self.body(request)
        var name = q.string("name") ?? "body"
        if let boundary = Self.multipartBoundary(request) {
            let part = try Self.firstFile(bytes, boundary: boundary)
            bytes = part.bytes
            if q.string("name") == nil, let filename = part.filename { name = filename }
        }
        let keepImage = try q.flag("keep-image")
        let (storeID, at, currency, category, allow) = (
            q.string("store"), q.string("at"), q.string("currency") ?? "EUR", q.string("category"), try q.flag("allow-mismatch"))
        let input: ReceiptRecording.Input
        if ReceiptInput.isImage(bytes) {
            try scans.takeOrRefuse()
            defer { scans.give() }
            // Tesseract reads from a file; a private one, gone when read.
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(UploadedFile.prefix)\(getpid())-receipt-\(UUID().uuidString)")
            guard FileManager.default.createFile(atPath: url.path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
                throw Problem(.serviceUnavailable, "the service could not keep the upload (disk full?); retry later")
            }
            defer { try? FileManager.default.removeItem(at: url) }
            let (photo, name) = (bytes, name)
            let stop = ScanCancellation(deadline: .now + scanTime)
            do {
                input = try await withTaskCancellationHandler {
                    try await offloadedInBackground {
                        try ReceiptInput.input(
                            bytes: photo, path: url.path, name: name, keepImage: keepImage, user: user, storeID: storeID, at: at,
                            currency: currency, category: category, allowMismatch: allow, stop: stop)
                    }
                } onCancel: {
                    stop.cancel()
                }
            } catch ScanError.stopped {
                var p = Problem(.serviceUnavailable, "reading the photo took longer than the service allows (\(scanTime)); nothing was stored: retry later, or send a smaller photo")
                p.headers[.retryAfter] = "5"
                throw p
            }
        } else {
            guard bytes.count <= Self.maxBytes else {
                throw Problem(.contentTooLarge, "a receipt text is at most \(Self.maxBytes >> 10) KiB; this is not one receipt, send each on its own")
            }
            input = try ReceiptInput.input(
                bytes: bytes, path: name, name: name, keepImage: keepImage, user: user, storeID: storeID, at: at, currency: currency,
                category: category, allowMismatch: allow)
        }
        return try await imported(input, q)
    }

    /// The receipt stored, 201, with the lines `?expires=3=2025-06-30` (repeatable, `--expires`)
    /// names kept in the pantry.
    private func imported(_ input: ReceiptRecording.Input, _ q: QueryParameters) async throws -> Response {
        var input = input
        input.expires = q.all("expires")
        return Self.created(try await ReceiptRecording.importReceipt(input, db: store))
    }

    /// `{"receipts": [receipts list's objects], "next": "SEQ" | null}`, oldest first.
    @Sendable func list(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let q = QueryParameters(request)
        let limit = try q.int("limit", in: 1...1000) ?? 100
        let items = try await store.receipts(userID: user, after: try q.int64("after"), limit: limit + 1)
        let page = items.prefix(limit)
        let next: JSONOutput = items.count > limit ? page.last.map { .string(String($0.sequence)) } ?? .null : .null
        return JSONResponse.make(.object([("receipts", .array(page.map(Self.summary))), ("next", next)]))
    }

    @Sendable func show(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try context.parameters.require("id")
        guard let r = try await store.receipt(id: id, userID: user) else { throw Self.notFound(id) }
        return JSONResponse.make(r.json())
    }

    /// The kept photo (`keep-image=true`) as `image/jpeg` or `image/png`, never cached by a shared
    /// cache; 404 for a receipt that kept none, as for another user's.
    @Sendable func image(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try context.parameters.require("id")
        guard let r = try await store.receipt(id: id, userID: user) else { throw Self.notFound(id) }
        guard let bytes = r.image, ReceiptInput.isImage(bytes) else {
            throw Problem(.notFound, "receipt \(OutputEscaping.visible(id)) kept no photo (it was a text, or imported without keep-image=true)")
        }
        let type = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "image/png" : "image/jpeg"
        var response = Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        response.headers[.cacheControl] = "private, no-store"
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return response
    }

    /// 204; another user's receipt is 404, as one that never was. As DELETE `/expenses/{id}`, the
    /// file is rewritten (`BatchedRewrite`) within seconds, once for the deletions made meanwhile.
    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try context.parameters.require("id")
        guard try await store.deleteReceipt(id: id, userID: user, rewrite: .batched) != nil else { throw Self.notFound(id) }
        await rewrites.deletionCommitted()
        return Response(status: .noContent)
    }

    @Sendable func correct(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try context.parameters.require("id")
        let q = QueryParameters(request)
        let c = ReceiptRecording.Correction(
            line: try q.int("line", in: 1...1_000_000), price: q.string("price"), storeID: q.string("store"), date: q.string("date"),
            total: q.string("total"))
        guard c.line != nil || c.price != nil || c.storeID != nil || c.date != nil || c.total != nil else {
            throw Problem(.badRequest, "say what to correct: line and price, store, date or total, e.g. ?line=6&price=2.00")
        }
        guard try await store.receipt(id: id, userID: user) != nil else { throw Self.notFound(id) }
        return JSONResponse.make(ReceiptRecording.json(try await ReceiptRecording.correct(id: id, user: user, c, db: store)))
    }

    @Sendable func confirm(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await context.checkedUser(in: store)
        let id = try context.parameters.require("id")
        guard try await store.receipt(id: id, userID: user) != nil else { throw Self.notFound(id) }
        // `?expires=3=2025-06-30`, repeatable: the lines that become pantry items (`--expires`).
        let expires = QueryParameters(request).all("expires")
        return JSONResponse.make(ReceiptRecording.json(try await ReceiptRecording.confirm(id: id, user: user, expires: expires, db: store)))
    }

    static func notFound(_ id: String) -> Problem {
        Problem(.notFound, "no receipt \(OutputEscaping.visible(id)) of this token's user; GET /api/v1/receipts lists them")
    }

    static func created(_ saved: ReceiptRecording.Saved) -> Response {
        var response = JSONResponse.make(ReceiptRecording.json(saved))
        response.status = .created
        return response
    }

    /// A receipt in the list: `receipts list --format json`'s object.
    static func summary(_ r: Receipt) -> JSONOutput {
        .object([
            ("sequence", .integer(r.sequence)), ("id", .string(r.id)), ("status", .string(r.status.rawValue)),
            ("store", r.storeID.map { .string($0) } ?? .null), ("date", r.date.map { .string($0) } ?? .null),
            ("total", r.total.map { .string($0.decimalString) } ?? .null), ("currency", .string(r.currency.code)),
            ("items", .integer(Int64(r.items.count))), ("problems", .array(r.problems.map { .string($0) })),
            ("expense_id", r.expenseID.map { .string($0) } ?? .null),
        ])
    }

    /// The largest receipt text taken: about 2,000 lines, far more than a till prints, and small
    /// enough that parsing it costs milliseconds of one core (a 1 MiB text of 9,300 lines let two
    /// clients slow every other user to a p99 of 0.94 s; docs/RELIABILITY.md § 9.9).
    static let maxBytes = 64 << 10

    /// The largest photo taken: 20 MiB, a 48-megapixel phone JPEG with room to spare.
    static let maxPhotoBytes = 20 << 20

    /// The body's bytes, up to a photo's size.
    static func body(_ request: Request) async throws -> [UInt8] {
        var collected = ByteBuffer()
        for try await chunk in request.body {
            guard collected.readableBytes + chunk.readableBytes <= maxPhotoBytes else {
                throw Problem(.contentTooLarge, "a receipt is at most \(maxPhotoBytes >> 20) MiB (a photo) or \(maxBytes >> 10) KiB (a text); scale the photo down")
            }
            collected.writeImmutableBuffer(chunk)
        }
        return Array(buffer: collected)
    }

    /// The boundary of a `multipart/form-data` body, or nil for a body sent as it is.
    static func multipartBoundary(_ request: Request) -> String? {
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for param in type.split(separator: ";").dropFirst() {
            let pair = param.trimmingCharacters(in: .whitespaces)
            if pair.lowercased().hasPrefix("boundary=") {
                return String(pair.dropFirst("boundary=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    /// The first part of a multipart body: its bytes and file name (RFC 7578).
    static func firstFile(_ body: [UInt8], boundary: String) throws -> (bytes: [UInt8], filename: String?) {
        let delimiter = Array("--\(boundary)".utf8)
        let bad = Problem(.badRequest, "the multipart body has no part; send the photo or text as the form's one file (curl -F file=@IMG.jpg)")
        guard let first = find(delimiter, in: body, from: 0) else { throw bad }
        guard let headersEnd = find(Array("\r\n\r\n".utf8), in: body, from: first + delimiter.count) else { throw bad }
        let headers = String(decoding: body[(first + delimiter.count)..<headersEnd], as: UTF8.self)
        let start = headersEnd + 4
        guard let end = find(Array("\r\n".utf8) + delimiter, in: body, from: start) else { throw bad }
        var filename: String?
        if let range = headers.range(of: "filename=\"") {
            filename = String(headers[range.upperBound...].prefix { $0 != "\"" })
        }
        return (Array(body[start..<end]), filename)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard needle.count > 0, haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        var i = from
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0] && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

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
