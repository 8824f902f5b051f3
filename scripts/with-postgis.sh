#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL 15 + PostGIS 3 server (scripts/postgis.sh) and a
# hot standby of it (streaming replication on loopback): their addresses go into
# $GEOSPEND_TEST_POSTGRES and $GEOSPEND_TEST_POSTGRES_REPLICA as postgresql://postgres@127.0.0.1:PORT/postgres,
# and both servers and their folders are gone afterwards, whatever the command's exit status.
#
#   scripts/with-postgis.sh swift test
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/geospend-pg-XXXXXX)
chmod 755 "$dir"
trap '"$here/postgis.sh" stop "$dir/replica"; "$here/postgis.sh" stop "$dir/server"; rm -rf "$dir"' EXIT
url() { echo "postgresql://postgres@127.0.0.1:$(sed -n 's/.*port=\([0-9]*\).*/\1/p' <<<"$1")/postgres"; }
GEOSPEND_TEST_POSTGRES=$(url "$("$here/postgis.sh" start "$dir/server")")
GEOSPEND_TEST_POSTGRES_REPLICA=$(url "$("$here/postgis.sh" replica "$dir/server" "$dir/replica")")
export GEOSPEND_TEST_POSTGRES GEOSPEND_TEST_POSTGRES_REPLICA
echo "PostGIS for the tests: $GEOSPEND_TEST_POSTGRES (replica: $GEOSPEND_TEST_POSTGRES_REPLICA)" >&2
"$@"
