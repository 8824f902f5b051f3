import CTesseract

/// Tesseract's and Leptonica's functions (CTesseract.h), from the libraries opened the first time
/// a photo is read: a command that reads none does not load them (about 4 ms of every command's
/// CPU when they were linked in, docs/MEASUREMENTS.md).
enum OCRLibrary {
    /// The functions, or why the libraries could not be opened; opened once, on first use.
    private static let opened: Result<GeoSpendOCRLibrary, ScanError> = {
        var library = GeoSpendOCRLibrary()
        if let failure = geospend_ocr_open(&library) { return .failure(.library(String(cString: failure))) }
        return .success(library)
    }()

    /// Opens the libraries; throws `ScanError.library` when they cannot be.
    static func open() throws { _ = try opened.get() }

    /// The functions, once `open` has succeeded: every image here comes from `pixRead` after it.
    static var functions: GeoSpendOCRLibrary {
        guard case .success(let library) = opened else { preconditionFailure("OCRLibrary.open() first") }
        return library
    }
}

/// Tesseract's and Leptonica's functions: `ocr.pixRead(path)`.
var ocr: GeoSpendOCRLibrary { OCRLibrary.functions }
