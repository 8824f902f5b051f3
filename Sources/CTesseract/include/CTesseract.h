// Tesseract's C API (OCR) and Leptonica (the image it reads, and the preparing of it), reached
// through a table of their functions filled the first time a photo is read
// (geospend_ocr_open): linked in, the two libraries and theirs were loaded at the start of
// every geospend command, about 4 ms of its CPU (`geospend --version`: 32 ms, 28 without them;
// docs/MEASUREMENTS.md). The headers give the types; calling a function by its own name would
// not link, as nothing here links the libraries.
#ifndef GEOSPEND_CTESSERACT_H
#define GEOSPEND_CTESSERACT_H

#include <leptonica/allheaders.h>
#include <tesseract/capi.h>

// Every function GeoSpendOCR calls.
#define GEOSPEND_OCR_FUNCTIONS(X) \
    X(TessBaseAPICreate) X(TessBaseAPIDelete) X(TessBaseAPIEnd) X(TessBaseAPIGetUTF8Text) \
    X(TessBaseAPIInit2) X(TessBaseAPIRecognize) X(TessBaseAPISetImage2) \
    X(TessBaseAPISetPageSegMode) X(TessBaseAPISetVariable) X(TessDeleteText) \
    X(TessMonitorCreate) X(TessMonitorDelete) X(TessMonitorSetCancelFunc) \
    X(TessMonitorSetCancelThis) \
    X(boxCreate) X(boxDestroy) X(boxaDestroy) X(boxaGetBoxGeometry) X(boxaGetCount) \
    X(findFileFormat) X(pixBackgroundNormFlex) X(pixClipRectangle) X(pixConnCompBB) \
    X(pixConvertRGBToLuminance) X(pixConvertTo8) X(pixDeskew) X(pixDestroy) X(pixGetData) \
    X(pixGetDepth) X(pixGetHeight) X(pixGetWidth) X(pixGetWpl) \
    X(pixOtsuThreshOnBackgroundNorm) X(pixProjectivePtaGray) X(pixRead) X(pixReadHeader) \
    X(pixRotateOrth) X(pixScaleAreaMap) X(pixScaleGrayLI) X(pixUnsharpMaskingGray) \
    X(ptaAddPt) X(ptaCreate) X(ptaDestroy) X(setMsgSeverity)

/// The functions, each field named and typed as the function it points to.
typedef struct GeoSpendOCRLibrary {
#define GEOSPEND_OCR_FIELD(name) __typeof__(&name) name;
    GEOSPEND_OCR_FUNCTIONS(GEOSPEND_OCR_FIELD)
#undef GEOSPEND_OCR_FIELD
} GeoSpendOCRLibrary;

/// Opens libtesseract (and Leptonica with it) and fills `library`. Returns NULL, or why it
/// could not: the loader's message, or the name of a function the library lacks.
const char *geospend_ocr_open(GeoSpendOCRLibrary *library);

#endif
