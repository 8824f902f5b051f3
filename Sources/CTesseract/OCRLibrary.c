#include "CTesseract.h"

#include <dlfcn.h>

const char *geospend_ocr_open(GeoSpendOCRLibrary *library) {
    // The soname of Debian 12's libtesseract5; Leptonica comes with it as its dependency, and
    // dlsym on this handle finds Leptonica's functions there too.
    void *tesseract = dlopen("libtesseract.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!tesseract) return dlerror();
#define GEOSPEND_OCR_LOAD(name) \
    if (!(library->name = (__typeof__(library->name))dlsym(tesseract, #name))) return #name;
    GEOSPEND_OCR_FUNCTIONS(GEOSPEND_OCR_LOAD)
#undef GEOSPEND_OCR_LOAD
    return 0;
}
