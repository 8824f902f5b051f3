import CTesseract
import Foundation
import GeoSpend
import Synchronization

/// Why a photo could not be read; each message names the file and says what to do.
public enum ScanError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchFile(String)
    case notAnImage(String)
    case tooLarge(String, width: Int, height: Int)
    case unreadable(String)
    case languages(String)
    case preparation(String)
    /// Tesseract's library could not be opened (the loader's words, or a function it lacks).
    case library(String)
    /// The scan was stopped (`ScanCancellation`) or ran past its deadline before Tesseract had read the photo.
    case stopped(String)

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
        case .library(let why):
            return "Tesseract could not be opened (\(why)); install libtesseract5 and liblept5 (scripts/bootstrap.sh does)"
        case .stopped(let p): return "\(p): the reading was stopped before it finished (cancelled or out of time); try again"
        }
    }
}

/// Reads a photo of a receipt: Leptonica prepares it (PhotoPreparation), Tesseract's C API reads
/// the text (`TessBaseAPIInit2`, `TessBaseAPISetImage2`, `TessBaseAPIGetUTF8Text`).
///
/// ```swift
/// let text = try ReceiptScanner.text(ofPhoto: "receipt.jpg", languages: "deu+eng+fin")
/// let scan = ReceiptScan.read(text, currency: try Currency(code: "EUR"))
/// ```
public enum ReceiptScanner {
    /// Photos above this many pixels are refused before decoding (a 48-megapixel phone photo is
    /// 8000×6000): decoding one takes 4 bytes a pixel.
    public static let maximumPixels = 50_000_000

    /// Makes this process's OpenMP single-threaded, by starting the same command again with
    /// `OMP_THREAD_LIMIT=1` when it is unset: Debian's Tesseract runs its LSTM on OpenMP threads
    /// that spin while they wait, and on a busy machine that made one receipt take 2.6 to 9.4 s
    /// instead of 1.1 to 1.4 s (measured, docs/RECEIPTS.md). libgomp reads the variable when it is
    /// loaded, with Tesseract (`OCRLibrary`, on the first photo); `serve`'s test reads the variable
    /// from its environment in /proc, which a restart sets. Returns only when the variable was
    /// already set or the restart failed (then it goes on as it is).
    public static func restartSingleThreaded() {
        guard ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] == nil else { return }
        setenv("OMP_THREAD_LIMIT", "1", 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
    }

    /// Recognises the text of the photo at `path`, lines as printed.
    /// - Throws: `ScanError` naming the file for a missing, non-image, oversized or damaged file,
    ///   or languages Tesseract has no data for.
    /// - Parameter stop: when set, Tesseract's recognition asks it after every word and stops
    ///   (`ScanError.stopped`) once it is cancelled or its deadline has passed
    ///   (`TessMonitorSetCancelFunc`, `TessBaseAPIRecognize`); the preparation steps ask it
    ///   between steps.
    public static func text(ofPhoto path: String, languages: String, steps: PreparationSteps = .all, stop: ScanCancellation? = nil) throws -> String {
        try OCRLibrary.open()
        _ = ocr.setMsgSeverity(6)  // L_SEVERITY_NONE: Leptonica's warnings are not the user's business
        guard FileManager.default.fileExists(atPath: path) else { throw ScanError.noSuchFile(path) }
        var format: Int32 = 0
        guard ocr.findFileFormat(path, &format) == 0, format == 2 || format == 3 else {  // IFF_JFIF_JPEG, IFF_PNG
            throw ScanError.notAnImage(path)
        }
        var (w, h, bps, spp, cmap): (Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0)
        guard ocr.pixReadHeader(path, nil, &w, &h, &bps, &spp, &cmap) == 0 else { throw ScanError.unreadable(path) }
        guard Int(w) * Int(h) <= maximumPixels else { throw ScanError.tooLarge(path, width: Int(w), height: Int(h)) }
        let timing = ProcessInfo.processInfo.environment["GEOSPEND_SCAN_TIMING"] != nil
        var last = clock()
        func lap(_ step: String) {
            guard timing else { return }
            let now = clock()
            FileHandle.standardError.write("scan: \(step) \(Double(now - last) / Double(CLOCKS_PER_SEC)) s CPU\n".data(using: .utf8)!)
            last = now
        }
        guard let raw = ocr.pixRead(path) else { throw ScanError.unreadable(path) }
        var photo = Picture(raw)
        if format == 2, let handle = FileHandle(forReadingAtPath: path) {
            let head = [UInt8](handle.readData(ofLength: 128 * 1024))
            try? handle.close()
            photo = try PhotoOrientation.upright(photo, orientation: PhotoOrientation.exifOrientation(head))
        }
        lap("decode")
        if stop?.isStopped == true { throw ScanError.stopped(path) }
        let prepared = try PhotoPreparation.prepare(photo, steps: steps, lap: lap)
        if stop?.isStopped == true { throw ScanError.stopped(path) }
        let text = try recognise(prepared, languages: languages, stop: stop, lap: lap)
        guard let text else { throw ScanError.stopped(path) }
        return text
    }

    /// The text, or nil when `stop` stopped the recognition.
    static func recognise(_ picture: Picture, languages: String, stop: ScanCancellation? = nil, lap: (String) -> Void = { _ in }) throws -> String? {
        guard let api = ocr.TessBaseAPICreate() else { throw ScanError.preparation("TessBaseAPICreate") }
        defer {
            ocr.TessBaseAPIEnd(api)
            ocr.TessBaseAPIDelete(api)
        }
        let dataPath = ProcessInfo.processInfo.environment["TESSDATA_PREFIX"]
        // OEM_LSTM_ONLY (1): Debian's language data are the fast LSTM models.
        guard ocr.TessBaseAPIInit2(api, dataPath, languages, OEM_LSTM_ONLY) == 0 else { throw ScanError.languages(languages) }
        lap("tesseract init")
        // One block of lines: a receipt's prices stay on their item's line (the automatic layout
        // would read the price column as a block of its own).
        ocr.TessBaseAPISetPageSegMode(api, PSM_SINGLE_BLOCK)
        _ = ocr.TessBaseAPISetVariable(api, "user_defined_dpi", "300")
        _ = ocr.TessBaseAPISetVariable(api, "preserve_interword_spaces", "1")
        _ = ocr.TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        ocr.TessBaseAPISetImage2(api, picture.pix)
        if let stop {
            guard let monitor = ocr.TessMonitorCreate() else { throw ScanError.preparation("TessMonitorCreate") }
            defer { ocr.TessMonitorDelete(monitor) }
            let unmanaged = Unmanaged.passRetained(stop)
            defer { unmanaged.release() }
            ocr.TessMonitorSetCancelThis(monitor, unmanaged.toOpaque())
            // Asked after each word; a C function pointer captures nothing, so the flag comes as `cancel_this`.
            ocr.TessMonitorSetCancelFunc(monitor) { this, _ in
                guard let this else { return false }
                return Unmanaged<ScanCancellation>.fromOpaque(this).takeUnretainedValue().isStopped
            }
            let recognised = ocr.TessBaseAPIRecognize(api, monitor)
            if recognised != 0 || stop.isStopped { return nil }
        }
        guard let text = ocr.TessBaseAPIGetUTF8Text(api) else { return "" }
        lap("recognise \(picture.width)x\(picture.height)")
        defer { ocr.TessDeleteText(text) }
        return String(cString: text)
    }
}

/// Stops a scan in progress (`ReceiptScanner.text(ofPhoto:languages:steps:stop:)`): cancelled
/// from any thread, or once `deadline` has passed. The service gives each scan one, so a request
/// that runs out of time or is cancelled stops its OCR within a word instead of reading on.
public final class ScanCancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let deadline: ContinuousClock.Instant?

    public init(deadline: ContinuousClock.Instant? = nil) { self.deadline = deadline }

    public func cancel() { cancelled.store(true, ordering: .relaxed) }

    public var isStopped: Bool {
        if cancelled.load(ordering: .relaxed) { return true }
        if let deadline { return ContinuousClock.now >= deadline }
        return false
    }
}
