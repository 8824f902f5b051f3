// Tesseract's C API (OCR) and Leptonica (the image it reads, and the preparing of it).
#include <leptonica/allheaders.h>
#include <tesseract/capi.h>
