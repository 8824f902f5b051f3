import CTesseract
import Foundation
import GeoSpend

/// Why a photo could not be read; each message names the file and says what to do.
public enum ScanError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchFile(String)
    case notAnImage(String)
    case tooLarge(String, width: Int, height: Int)
    case unreadable(String)
    case languages(String)
    case preparation(String)

    public var description: String {
        switch self {
        case .noSuchFile(let p): return "\(p): no such file; check the path"
        case .notAnImage(let p): return "\(p): not a JPEG or PNG image; give the photo of the receipt (for its text use `geospend receipts parse`)"
        case .tooLarge(let p, let w, let h):
            return "\(p): \(w)×\(h) pixels is more than the \(ReceiptScanner.maximumPixels / 1_000_000) megapixels read; scale the photo down (a receipt reads well at 2000 pixels high)"
        case .unreadable(let p): return "\(p): the image could not be decoded (a truncated or damaged file?); take or export the photo again"
        case .languages(let l):
            return "--lang \(l): Tesseract has no language data for it; install tesseract-ocr-LANG (scripts/bootstrap.sh installs deu, eng and fin)"
        case .preparation(let step): return "preparing the photo failed at \(step) (Leptonica)"
        }
    }
}

/// Reads a photo of a receipt: Leptonica prepares it (PhotoPreparation), Tesseract's C API reads
/// the text (`TessBaseAPIInit3`, `TessBaseAPISetImage2`, `TessBaseAPIGetUTF8Text`).
///
/// ```swift
/// let text = try ReceiptScanner.text(ofPhoto: "receipt.jpg", languages: "deu+eng+fin")
/// let scan = ReceiptScan.read(text, currency: try Currency(code: "EUR"))
/// ```
public enum ReceiptScanner {
    /// Photos above this many pixels are refused before decoding (a 48-megapixel phone photo is
    /// 8000×6000): decoding one takes 4 bytes a pixel.
    public static let maximumPixels = 50_000_000

    /// Recognises the text of the photo at `path`, lines as printed.
    /// - Throws: `ScanError` naming the file for a missing, non-image, oversized or damaged file,
    ///   or languages Tesseract has no data for.
    public static func text(ofPhoto path: String, languages: String, steps: PreparationSteps = .all) throws -> String {
        _ = setMsgSeverity(6)  // L_SEVERITY_NONE: Leptonica's warnings are not the user's business
        guard FileManager.default.fileExists(atPath: path) else { throw ScanError.noSuchFile(path) }
        var format: Int32 = 0
        guard findFileFormat(path, &format) == 0, format == 2 || format == 3 else {  // IFF_JFIF_JPEG, IFF_PNG
            throw ScanError.notAnImage(path)
        }
        var (w, h, bps, spp, cmap): (Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0)
        guard pixReadHeader(path, nil, &w, &h, &bps, &spp, &cmap) == 0 else { throw ScanError.unreadable(path) }
        guard Int(w) * Int(h) <= maximumPixels else { throw ScanError.tooLarge(path, width: Int(w), height: Int(h)) }
        guard let raw = pixRead(path) else { throw ScanError.unreadable(path) }
        let prepared = try PhotoPreparation.prepare(Picture(raw), steps: steps)
        return try recognise(prepared, languages: languages)
    }

    static func recognise(_ picture: Picture, languages: String) throws -> String {
        guard let api = TessBaseAPICreate() else { throw ScanError.preparation("TessBaseAPICreate") }
        defer {
            TessBaseAPIEnd(api)
            TessBaseAPIDelete(api)
        }
        let dataPath = ProcessInfo.processInfo.environment["TESSDATA_PREFIX"]
        // OEM_LSTM_ONLY (1): Debian's language data are the fast LSTM models.
        guard TessBaseAPIInit2(api, dataPath, languages, OEM_LSTM_ONLY) == 0 else { throw ScanError.languages(languages) }
        // One block of lines: a receipt's prices stay on their item's line (the automatic layout
        // would read the price column as a block of its own).
        TessBaseAPISetPageSegMode(api, PSM_SINGLE_BLOCK)
        _ = TessBaseAPISetVariable(api, "user_defined_dpi", "300")
        _ = TessBaseAPISetVariable(api, "preserve_interword_spaces", "1")
        _ = TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        TessBaseAPISetImage2(api, picture.pix)
        guard let text = TessBaseAPIGetUTF8Text(api) else { return "" }
        defer { TessDeleteText(text) }
        return String(cString: text)
    }
}
