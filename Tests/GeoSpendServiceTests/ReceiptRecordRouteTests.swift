import Foundation
import GeoSpendService
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `/api/v1/receipts` (issue 42 §2) through the service's router against `geospend receipts
/// show` on the same file: a photo posted as a multipart form becomes an ok receipt with its
/// expense; a text with no store waits for review until corrected; the list pages; bob's token
/// finds none of alice's receipts; delete takes them away.
@Suite(.serialized) struct ReceiptRecordRouteTests {
    let f: ServiceFixture
    let alice = ServiceFixture.alice

    init() throws { f = try ServiceFixture() }

    /// In process (`.router`), as the other route suites: HummingbirdTesting's `.live` client
    /// gives up after 20 s, and under `make test`'s load the photo's OCR took longer
    /// (`.readTimeout`, 04:45 UTC). LiveServerTests serve the same router on loopback.
    func live<T: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        let app = Application(router: buildRouter(store: try f.store(), timeLimit: ServiceFixture.patient), logger: ServiceFixture.quiet)
        return try await app.test(.router) { client in try await body(client) }
    }

    func send(_ client: any TestClientProtocol, _ uri: String, _ token: String, method: HTTPRequest.Method, body: [UInt8]? = nil, type: String? = nil) async throws -> Answer {
        var headers: HTTPFields = [.authorization: "Bearer \(f.tokens[token]!)"]
        if let type { headers[.contentType] = type }
        return try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) }) { r in
            Answer(status: r.status, body: String(buffer: r.body), headers: r.headers)
        }
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test func receiptsOverHTTP() async throws {
        let photo = [UInt8](try Data(contentsOf: ServiceFixture.repo.appendingPathComponent("Tests/Fixtures/receipts/phone-900-de.jpg")))
        let boundary = "geospend-test-boundary"
        let form = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"IMG_900.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            + photo + Array("\r\n--\(boundary)--\r\n".utf8)
        let (made, shownByHTTP, cli, listed, bobSees, waiting, corrected, gone, after) = try await live { client in
            let made = try await send(client, "/api/v1/receipts?store=288130404&keep-image=true", "aliceWrite", method: .post, body: form,
                                      type: "multipart/form-data; boundary=\(boundary)")
            let id = (try? json(made.body)["receipt_id"] as? String) ?? "none"
            let shown = try await send(client, "/api/v1/receipts/\(id)", "alice", method: .get)
            // What the CLI shows of the same file, before the receipt is deleted below.
            let cli = try f.geospend(["receipts", "show", id, "--user", alice, "--format", "json", "--db", f.db])
            let listed = try await send(client, "/api/v1/receipts?limit=1", "alice", method: .get)
            let bob = try await send(client, "/api/v1/receipts/\(id)", "bob", method: .get)
            let text = Array("Kiosk Nowhere\n16.12.2024 15:53\nMilch 1,29\nSUMME 1,29\n".utf8)
            let waiting = try await send(client, "/api/v1/receipts", "aliceWrite", method: .post, body: text, type: "text/plain")
            let waitingID = (try? json(waiting.body)["receipt_id"] as? String) ?? "none"
            let corrected = try await send(client, "/api/v1/receipts/\(waitingID)/correct?store=288130404", "aliceWrite", method: .post)
            let gone = try await send(client, "/api/v1/receipts/\(id)", "aliceWrite", method: .delete)
            let after = try await send(client, "/api/v1/receipts/\(id)", "alice", method: .get)
            return (made, shown, cli, listed, bob, waiting, corrected, gone, after)
        }
        #expect(made.status == .created, "\(made.body)")
        let m = try json(made.body)
        #expect(m["status"] as? String == "ok", "\(m["problems"] ?? "")")
        #expect(m["total"] as? String == "18.22" && m["price_records"] as? Int == 5)
        let id = try #require(m["receipt_id"] as? String)
        #expect(m["expense_id"] as? String == id)
        // What the CLI shows of the same file is what the service answered.
        #expect(cli.status == 0, "\(cli.err)")
        #expect(shownByHTTP.status == .ok)
        let shown = try json(shownByHTTP.body)
        #expect(shown["image_kept"] as? Bool == true && shown["image_name"] as? String == "IMG_900.jpg")
        #expect(shown["id"] as? String == id && shown["total"] as? String == "18.22")
        #expect(try json(cli.out)["items"] as? NSArray == shown["items"] as? NSArray)

        #expect(listed.status == .ok)
        let page = try json(listed.body)
        #expect((page["receipts"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
        #expect(page["next"] is NSNull, "one receipt is one page")
        expectProblem(bobSees, status: 404, says: "no receipt")

        #expect(waiting.status == .created, "\(waiting.body)")
        let w = try json(waiting.body)
        #expect(w["status"] as? String == "needs_review")
        #expect((w["problems"] as? [String])?.contains { $0.hasPrefix("no store") } == true)
        #expect(w["expense_id"] is NSNull)
        #expect(corrected.status == .ok, "\(corrected.body)")
        #expect(try json(corrected.body)["status"] as? String == "ok")

        #expect(gone.status == .noContent)
        expectProblem(after, status: 404, says: "no receipt")
    }

    @Test(arguments: [
        ("alice", HTTPRequest.Method.post, "/api/v1/receipts", "Milch 1,29\nSUMME 1,29\n", 403, "write token"),
        ("aliceWrite", .post, "/api/v1/receipts", "SUMME 1,00\n", 400, "no item lines"),
        ("aliceWrite", .post, "/api/v1/receipts?store=nope", "Milch 1,29\nSUMME 1,29\n", 400, "no such store"),
        ("aliceWrite", .post, "/api/v1/receipts?keep-image=true", "Milch 1,29\nSUMME 1,29\n", 400, "keeps photos only"),
        ("aliceWrite", .post, "/api/v1/receipts/receipt-0/confirm", nil, 404, "no receipt"),
        ("aliceWrite", .post, "/api/v1/receipts/receipt-0/correct", nil, 400, "say what to correct"),
        ("alice", .get, "/api/v1/receipts?limit=0", nil, 400, "limit"),
    ] as [(String, HTTPRequest.Method, String, String?, Int, String)])
    func refusals(token: String, method: HTTPRequest.Method, uri: String, body: String?, status: Int, says: String) async throws {
        let a = try await live { client in try await send(client, uri, token, method: method, body: body.map { Array($0.utf8) }, type: "text/plain") }
        expectProblem(a, status: status, says: says)
    }
}
