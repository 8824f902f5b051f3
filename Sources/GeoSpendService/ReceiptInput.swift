import Crypto
import Foundation
import GeoSpend
import GeoSpendOCR

/// A receipt's file as `receipts import` and POST `/api/v1/receipts` take it: a JPEG or PNG photo
/// (known by its first bytes, not its name) is read with the §1 scanner (Tesseract), anything
/// else must be UTF-8 text. The photo's SHA-256 is its identity; its bytes are kept only when
/// asked (`--keep-image`, `keep-image=true`).
public enum ReceiptInput {
    /// Whether `bytes` start as a JPEG (`FF D8 FF`) or a PNG (`89 P N G`) does.
    public static func isImage(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0xFF, 0xD8, 0xFF]) || bytes.starts(with: [0x89, 0x50, 0x4E, 0x47])
    }

    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// The text of the photo at `path`, as `receipts scan` reads it.
    /// - Throws: `ScanError.stopped` when `stop` stopped it; `UsageError` for a photo that
    ///   cannot be read.
    public static func ocr(_ path: String, languages: String = "deu+eng+fin", stop: ScanCancellation? = nil) throws -> String {
        do { return try ReceiptScanner.text(ofPhoto: path, languages: languages, stop: stop) } catch let error as ScanError {
            switch error {
            case .stopped, .library: throw error  // not the photo's fault
            default: throw UsageError(error.description)
            }
        }
    }

    /// `bytes` (read from `path`, named `name` in messages) as an import's input: OCR for a
    /// photo, UTF-8 text otherwise (a byte-order mark dropped).
    public static func input(
        bytes: [UInt8], path: String, name: String, keepImage: Bool, user: String, storeID: String?, at: String?, currency: String,
        category: String?, allowMismatch: Bool, languages: String = "deu+eng+fin", stop: ScanCancellation? = nil
    ) throws -> ReceiptRecording.Input {
        if isImage(bytes) {
            return ReceiptRecording.Input(
                text: try ocr(path, languages: languages, stop: stop), name: name, isPhoto: true, imageHash: sha256Hex(bytes),
                keptImage: keepImage ? bytes : nil, user: user, storeID: storeID, at: at, currency: currency, category: category,
                allowMismatch: allowMismatch)
        }
        if keepImage { throw UsageError("\(name) is text, not a JPEG or PNG photo: --keep-image keeps photos only") }
        var text = bytes
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text.removeFirst(3) }
        guard let decoded = String(validating: text, as: UTF8.self) else {
            throw UsageError("\(name) is neither a JPEG or PNG photo nor UTF-8 text; save the OCR output as UTF-8 (most phones do) and try again")
        }
        return ReceiptRecording.Input(
            text: decoded, name: name, user: user, storeID: storeID, at: at, currency: currency, category: category, allowMismatch: allowMismatch)
    }
}
