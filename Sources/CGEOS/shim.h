// GEOS C API, reentrant functions only (the non-_r API keeps global state).
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
