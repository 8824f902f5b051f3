import Foundation
import GeoSpendTestSupport
import Testing

/// `geospend receipts scan` end to end on small generated photos (issue 42, Tests/Fixtures/receipts):
/// the store, date and total read and checked, a receipt printing a wrong total never `ok`, and
/// the errors for a missing file, a file that is not an image and one too large to decode.
@Suite struct ReceiptScanCLITests {
    static let fixtures = CLITests.repo.appendingPathComponent("Tests/Fixtures/receipts")

    func scan(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try runProgram(CLITests.binary, ["receipts", "scan"] + args, directory: CLITests.repo)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test(arguments: ["phone-900-de", "phone-901-fi", "phone-902-en"])
    func photoIsReadAndChecked(name: String) throws {
        let truth = try json(String(contentsOf: Self.fixtures.appendingPathComponent("\(name).json"), encoding: .utf8))
        let r = try scan([Self.fixtures.appendingPathComponent("\(name).jpg").path, "--format", "json"])
        try #require(r.status == 0, "\(r.err)")
        let got = try json(r.out)
        #expect(got["status"] as? String == "ok", "\(got["problems"] ?? "")")
        #expect(got["total"] as? String == truth["total"] as? String)
        #expect(got["currency"] as? String == truth["currency"] as? String)
        #expect(got["date"] as? String == truth["date"] as? String)
        #expect(got["store"] as? String == (truth["store"] as? [String: Any])?["name"] as? String)
        let items = try #require(got["items"] as? [[String: Any]])
        let expected = try #require(truth["items"] as? [[String: Any]])
        #expect(items.map { $0["price"] as? String } == expected.map { $0["price"] as? String })
    }

    /// A phone's photo stored sideways with Exif orientation 6 (turn 90° clockwise) is turned
    /// upright before it is read.
    @Test func sidewaysPhotoIsTurnedByItsExifOrientation() throws {
        let truth = try json(String(contentsOf: Self.fixtures.appendingPathComponent("phone-902-en.json"), encoding: .utf8))
        let r = try scan([Self.fixtures.appendingPathComponent("sideways-phone-902-en.jpg").path, "--format", "json"])
        try #require(r.status == 0, "\(r.err)")
        let got = try json(r.out)
        #expect(got["status"] as? String == "ok", "\(got["problems"] ?? "")")
        #expect(got["total"] as? String == truth["total"] as? String)
    }

    /// `--stores`: the header found in a registry, a like name at another postcode passed over.
    @Test func storeIsMatchedIntoTheRegistry() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let registry = dir.appendingPathComponent("stores.csv").path
        try """
            id,name,kind,brand,street,postcode,city,country,lat,lon
            decoy,Leipomo Virtaset,,,Kauppakatu 1,40100,Jyväskylä,FI,62.2,25.7
            bakery,Leipomo Virtanen,,,Hämeenkatu 14,33100,Tampere,FI,61.5,23.8
            """.write(toFile: registry, atomically: true, encoding: .utf8)
        let r = try scan([Self.fixtures.appendingPathComponent("phone-901-fi.jpg").path, "--stores", registry, "--format", "json"])
        try #require(r.status == 0, "\(r.err)")
        let got = try json(r.out)
        #expect(got["store_id"] as? String == "bakery")
        #expect(got["store"] as? String == "Leipomo Virtanen")
    }

    @Test func wrongPrintedTotalIsNeverOK() throws {
        let r = try scan([Self.fixtures.appendingPathComponent("tampered-phone-903-de.jpg").path, "--format", "json"])
        try #require(r.status == 0, "\(r.err)")
        let got = try json(r.out)
        #expect(got["status"] as? String == "needs_review")
        #expect((got["problems"] as? [String])?.contains { $0.contains("not the total") } == true)
        let table = try scan([Self.fixtures.appendingPathComponent("tampered-phone-903-de.jpg").path])
        #expect(table.out.contains("status: needs_review"))
    }

    @Test func errorsNameTheFileAndTheFix() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("nope.jpg").path
        let r1 = try scan([missing])
        #expect(r1.status != 0)
        #expect(r1.err.contains("\(missing): no such file"))
        let text = dir.appendingPathComponent("receipt.txt").path
        try "SUMME 1,00\n".write(toFile: text, atomically: true, encoding: .utf8)
        let r2 = try scan([text])
        #expect(r2.status != 0)
        #expect(r2.err.contains("\(text): not a JPEG or PNG image"))
        #expect(r2.err.contains("receipts parse"))
        // A PNG header claiming 10000×10000 pixels: refused before any decoding.
        let huge = dir.appendingPathComponent("huge.png").path
        try Self.pngHeader(width: 10_000, height: 10_000).write(to: URL(fileURLWithPath: huge))
        let r3 = try scan([huge])
        #expect(r3.status != 0)
        #expect(r3.err.contains("\(huge): 10000×10000 pixels is more than the 50 megapixels read"))
        let r5 = try scan([Self.fixtures.appendingPathComponent("phone-900-de.jpg").path, "--stores", missing])
        #expect(r5.status != 0)
        #expect(r5.err.contains("\(missing): cannot read"))
        let r4 = try scan([Self.fixtures.appendingPathComponent("phone-900-de.jpg").path, "--lang", "xyz"])
        #expect(r4.status != 0)
        #expect(r4.err.contains("--lang xyz: Tesseract has no language data"))
    }

    /// The PNG signature and an IHDR chunk (8-bit RGB), with its CRC-32; no image data.
    static func pngHeader(width: UInt32, height: UInt32) -> Data {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let chunk = Array("IHDR".utf8) + be(width) + be(height) + [8, 2, 0, 0, 0]
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in chunk {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        let end = Array("IEND".utf8)
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be(13) + chunk + be(~crc) + be(0) + end + [0xAE, 0x42, 0x60, 0x82])
    }
}
