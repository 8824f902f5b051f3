// PostgreSQL's C client (Debian libpq-dev): the benchmark's PostGIS connection.
#include <libpq-fe.h>
