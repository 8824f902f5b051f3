#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL 15 + PostGIS 3 server (scripts/postgis.sh):
# the server's address goes into $GEOSPEND_TEST_POSTGRES as postgresql://postgres@127.0.0.1:PORT/postgres,
# and the server and its folder are gone afterwards, whatever the command's exit status.
#
#   scripts/with-postgis.sh swift test
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/geospend-pg-XXXXXX)
chmod 755 "$dir"
trap '"$here/postgis.sh" stop "$dir"' EXIT
conninfo=$("$here/postgis.sh" start "$dir/server")
port=$(sed -n 's/.*port=\([0-9]*\).*/\1/p' <<<"$conninfo")
export GEOSPEND_TEST_POSTGRES="postgresql://postgres@127.0.0.1:$port/postgres"
echo "PostGIS for the tests: $GEOSPEND_TEST_POSTGRES" >&2
"$@"
