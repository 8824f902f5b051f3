// zlib (Debian's zlib1g-dev): gzip for the vector tiles MBTiles stores.
#include <zlib.h>
