// The four SpatiaLite entry points GeoSpend calls, declared with `void *` for the sqlite3 handle
// instead of including <spatialite.h>: that header pulls in <sqlite3.h>, which GRDB's own
// GRDBSQLite module already owns, and a C header in two Clang modules makes Swift's types clash.
// The ABI is the same (a pointer is a pointer); the library is Debian's libspatialite.
#ifndef GEOSPEND_CSPATIALITE_SHIM_H
#define GEOSPEND_CSPATIALITE_SHIM_H

void *spatialite_alloc_connection(void);
void spatialite_init_ex(void *sqlite3_handle, const void *cache, int verbose);
void spatialite_cleanup_ex(const void *cache);
const char *spatialite_version(void);

#endif
